package storagehttp

import (
	"context"
	"io"
	"net/textproto"
	"net/url"
	"strconv"
)

// transport sends one request: net/http natively, the page's fetch in the
// browser (where linking net/http would add 5 MB to folio.wasm).
type transport interface {
	// roundTrip sends method for u with header h, following redirects
	// that the storage allows, and returns the answer with its body open.
	// It ends when ctx does.
	roundTrip(ctx context.Context, method string, u *url.URL, h header) (*response, error)
}

// header is a request's or an answer's header fields, by canonical name.
type header textproto.MIMEHeader

// Get is the first value of the field key.
func (h header) Get(key string) string { return textproto.MIMEHeader(h).Get(key) }

// Set makes value the field key's only one.
func (h header) Set(key, value string) { textproto.MIMEHeader(h).Set(key, value) }

// clone is a copy of h that shares no slice with it (never nil).
func (h header) clone() header {
	c := make(header, len(h))
	for k, v := range h {
		c[textproto.CanonicalMIMEHeaderKey(k)] = append([]string(nil), v...)
	}
	return c
}

// response is an answer whose body is open; done releases the request.
type response struct {
	StatusCode    int
	Header        header
	Body          io.ReadCloser
	ContentLength int64    // -1 when unknown
	URL           *url.URL // the URL that answered, after redirects
	done          func()
}

// The statuses the storage tells apart.
const (
	statusOK                  = 200
	statusPartialContent      = 206
	statusNotFound            = 404
	statusGone                = 410
	statusPreconditionFailed  = 412
	statusRangeNotSatisfiable = 416
	statusTooManyRequests     = 429
)

// statusText is a status code with its usual phrase.
func statusText(code int) string {
	phrase := map[int]string{
		statusOK: "OK", statusPartialContent: "Partial Content", 301: "Moved Permanently", 302: "Found",
		304: "Not Modified", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", statusNotFound: "Not Found",
		statusGone: "Gone", statusPreconditionFailed: "Precondition Failed", statusRangeNotSatisfiable: "Range Not Satisfiable",
		statusTooManyRequests: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
		503: "Service Unavailable", 504: "Gateway Timeout",
	}[code]
	if phrase == "" {
		return strconv.Itoa(code)
	}
	return strconv.Itoa(code) + " " + phrase
}
