package fetch

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/transform"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/jsvalue"
)

// Defaults of WebOptions.
const (
	DefaultMaxBodyBytes = 20 << 20
	DefaultMaxRedirects = 10
)

// WebOptions configure a WebFetcher. The zero value is Vectra's default.
type WebOptions struct {
	// KeepHTML reports HTML pages as they are, with docType "html", instead
	// of converting them to markdown (Vectra's htmlToMarkdown: false).
	KeepHTML bool
	// KeepLeadingText keeps the start of a converted page that Vectra
	// drops: when the markdown's first space or line break comes after
	// its 64th character, everything before it (a long URL, a run of
	// symbols, or text). Vectra documents a summarizeHtml option for
	// this trimming but never reads it and always trims; by default Folio
	// trims as Vectra does.
	KeepLeadingText bool
	// Headers are sent with every request, over the browser-like defaults
	// (DefaultHeaders); a header given here replaces the default of the
	// same name. The map is read, never changed.
	Headers map[string]string
	// Client sends the requests; nil means a client with Go's default
	// transport. Its CheckRedirect, when set, runs after the redirect cap.
	Client *http.Client
	// MaxBodyBytes caps a response body, after decompression; a larger
	// body is ErrBodyTooLarge, read no further. 0 means DefaultMaxBodyBytes
	// (20 MiB).
	MaxBodyBytes int64
	// MaxRedirects caps the redirects one Fetch follows; one more is
	// ErrTooManyRedirects. 0 means DefaultMaxRedirects (10); a negative
	// value follows none.
	MaxRedirects int
	// Timeout bounds one Fetch: the request, its redirects and reading the
	// body. A page still unread then fails with ErrTimeout, so a server
	// that never answers, or sends a byte a second, cannot stall a caller
	// that gave no deadline of its own. 0 means DefaultTimeout (30 s); a
	// negative value sets none (the ctx alone bounds the fetch).
	Timeout time.Duration
}

// DefaultTimeout is WebOptions.Timeout when it is 0.
const DefaultTimeout = 30 * time.Second

// DefaultHeaders returns the headers a WebFetcher sends unless
// WebOptions.Headers replaces them: Vectra's browser-like headers, except
// that Accept-Encoding names only the encodings a WebFetcher decodes (gzip
// and deflate; Vectra also names sdch and br). Host and Alt-Used are set
// to the URL's host name on every request, as in Vectra.
func DefaultHeaders() map[string]string {
	return map[string]string{
		"Accept":                    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
		"Accept-Encoding":           "gzip, deflate",
		"Accept-Language":           "en-US,en;q=0.8,ms;q=0.6",
		"Connection":                "keep-alive",
		"Referer":                   "https://www.google.com/",
		"Sec-Fetch-Dest":            "document",
		"Sec-Fetch-Mode":            "navigate",
		"Sec-Fetch-Site":            "cross-site",
		"Upgrade-Insecure-Requests": "1",
		"User-Agent":                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/56.0.2924.87 Safari/537.36",
	}
}

// Errors of a WebFetcher's Fetch, found with errors.Is.
var (
	// ErrHTTPStatus: the site answered with a status of 400 or more (the
	// error is an *HTTPStatusError). It is core.ErrHTTPStatus, as in
	// every fetcher.
	ErrHTTPStatus = core.ErrHTTPStatus
	// ErrContentType: the response's content type is not one of text/html,
	// application/json, application/xml, application/javascript or
	// text/plain. It is core.ErrContentType.
	ErrContentType = core.ErrContentType
	// ErrBodyTooLarge: the body is larger than WebOptions.MaxBodyBytes. It
	// is core.ErrBodyTooLarge.
	ErrBodyTooLarge = core.ErrBodyTooLarge
	// ErrTooManyRedirects: more redirects than WebOptions.MaxRedirects.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrTimeout: the fetch took longer than WebOptions.Timeout. The error
	// also matches context.DeadlineExceeded.
	ErrTimeout = errors.New("fetch timed out")
	// ErrBinaryBody: the body holds a NUL byte in its first 8 KiB
	// (core.LooksBinary), whatever its declared content type; such a page
	// is not text and is not indexed, as binary files are not.
	ErrBinaryBody = errors.New("response body is binary")
)

// HTTPStatusError is the error of a response with a status of 400 or more.
// It matches ErrHTTPStatus.
type HTTPStatusError struct {
	URL        string
	StatusCode int
}

func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("fetch %q: site returned an HTTP status of %d", e.URL, e.StatusCode)
}

// Is makes errors.Is(err, ErrHTTPStatus) true.
func (e *HTTPStatusError) Is(target error) bool { return target == ErrHTTPStatus }

// webDocTypes are the content types a WebFetcher accepts, with the docType
// of their raw text (text/plain has none).
var webDocTypes = map[string]string{
	"text/html":              "html",
	"application/json":       "json",
	"application/xml":        "xml",
	"application/javascript": "javascript",
	"text/plain":             "",
}

// WebFetcher fetches one web page per uri, as Vectra's WebFetcher does:
// a GET with browser-like headers (DefaultHeaders, then WebOptions.Headers,
// then Host and Alt-Used set to the URL's host name); a status of 400 or
// more is an *HTTPStatusError; the content type must be text/html,
// application/json, application/xml, application/javascript or text/plain
// (else ErrContentType); the docType is the subtype ("html", "json",
// "xml", "javascript"), none for text/plain. HTML is converted to markdown
// (docType "md") unless WebOptions.KeepHTML: <script> and <style> dropped,
// the <body> converted, relative links made absolute against the page's
// URL, tables as GFM pipe tables with their column alignment, <hr> as
// "---"; then, as Vectra does, when the markdown's first space or line
// break comes after its 64th character, the text before it is dropped
// (a run of navigation or tracking text with no space in it).
//
// Fixed over Vectra: the content type is matched without regard to case or
// surrounding spaces; the body is decoded to UTF-8 from the charset the
// response declares (its Content-Type, a byte order mark, or an HTML
// <meta>), an undeclared charset being UTF-8 when the body is valid UTF-8
// and windows-1252 otherwise, as browsers do; the body is capped
// (MaxBodyBytes) and so are redirects (MaxRedirects); a fetch ends after
// WebOptions.Timeout (30 s by default) or when ctx ends; a body that is
// binary (a NUL byte in its first 8 KiB) is ErrBinaryBody whatever its
// content type; WebOptions.Headers is never changed.
//
// A WebFetcher is safe for concurrent use.
type WebFetcher struct {
	opts    WebOptions
	headers http.Header
	client  *http.Client
}

var _ core.TextFetcher = (*WebFetcher)(nil)

// NewWebFetcher returns a WebFetcher with opts; nil opts are the defaults.
func NewWebFetcher(o *WebOptions) *WebFetcher {
	var opts WebOptions
	if o != nil {
		opts = *o
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	switch {
	case opts.MaxRedirects == 0:
		opts.MaxRedirects = DefaultMaxRedirects
	case opts.MaxRedirects < 0:
		opts.MaxRedirects = 0
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	headers := make(http.Header)
	for k, v := range DefaultHeaders() {
		headers.Set(k, v)
	}
	for k, v := range opts.Headers {
		headers.Set(k, v)
	}

	client := &http.Client{}
	if opts.Client != nil {
		c := *opts.Client
		client = &c
	}
	next := client.CheckRedirect
	maxRedirects := opts.MaxRedirects
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fmt.Errorf("%w: more than %d", ErrTooManyRedirects, maxRedirects)
		}
		req.Host = req.URL.Hostname()
		req.Header.Set("Alt-Used", req.URL.Hostname())
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &WebFetcher{opts: opts, headers: headers, client: client}
}

// Fetch gets the page at uri and reports it to onDocument under uri. See
// WebFetcher for the rules.
func (f *WebFetcher) Fetch(ctx context.Context, uri string, onDocument func(ctx context.Context, uri, text, docType string) (bool, error)) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("fetch %q: %w", uri, err)
	}
	text, docType, err := f.get(ctx, uri)
	if err != nil {
		return false, err
	}
	return onDocument(ctx, uri, text, docType)
}

// get fetches uri and returns its text and docType, within the fetcher's
// Timeout.
func (f *WebFetcher) get(ctx context.Context, uri string) (text, docType string, err error) {
	if f.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, f.opts.Timeout, errFetchTimeout{f.opts.Timeout})
		defer cancel()
		defer func() {
			if err != nil && errors.Is(context.Cause(ctx), ErrTimeout) && !errors.Is(err, ErrTimeout) {
				err = fmt.Errorf("fetch %q: %w: %w", uri, context.Cause(ctx), err)
			}
		}()
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", "", fmt.Errorf("fetch %q: %w", uri, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", "", fmt.Errorf("fetch %q: %w: the scheme must be http or https", uri, core.ErrInvalidArgument)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return "", "", fmt.Errorf("fetch %q: %w", uri, err)
	}
	req.Header = f.headers.Clone()
	req.Host = u.Hostname()
	req.Header.Set("Alt-Used", u.Hostname())
	resp, err := f.client.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%w)", ctxErr, err)
		}
		return "", "", fmt.Errorf("fetch %q: %w", uri, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return "", "", &HTTPStatusError{URL: uri, StatusCode: resp.StatusCode}
	}
	header := resp.Header.Get("Content-Type")
	mediaType, _, _ := strings.Cut(header, ";")
	mediaType = strings.ToLower(strings.TrimSpace(mediaType))
	docType, ok := webDocTypes[mediaType]
	if !ok {
		return "", "", fmt.Errorf("fetch %q: %w of %q", uri, ErrContentType, header)
	}
	body, err := f.readBody(resp)
	if err != nil {
		return "", "", fmt.Errorf("fetch %q: %w", uri, err)
	}
	if core.LooksBinary("", body) {
		return "", "", fmt.Errorf("fetch %q: %w (served as %q)", uri, ErrBinaryBody, header)
	}
	text, err = decodeText(body, header)
	if err != nil {
		return "", "", fmt.Errorf("fetch %q: %w", uri, err)
	}
	if mediaType == "text/html" && !f.opts.KeepHTML {
		md, err := htmlToMarkdown(ctx, text, resp.Request.URL.String(), !f.opts.KeepLeadingText)
		if err != nil {
			return "", "", fmt.Errorf("fetch %q: %w", uri, err)
		}
		return md, "md", nil
	}
	return text, docType, nil
}

// readBody reads resp's body, decompressed, up to the cap.
func (f *WebFetcher) readBody(resp *http.Response) ([]byte, error) {
	limit := f.opts.MaxBodyBytes
	if resp.ContentLength > limit && resp.Header.Get("Content-Encoding") == "" {
		return nil, fmt.Errorf("%w: %d bytes, the cap is %d", ErrBodyTooLarge, resp.ContentLength, limit)
	}
	var r io.Reader = resp.Body
	switch enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("gzip body: %w", err)
		}
		defer zr.Close()
		r = zr
	case "deflate":
		zr, err := zlib.NewReader(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("deflate body: %w", err)
		}
		defer zr.Close()
		r = zr
	default:
		return nil, fmt.Errorf("unsupported content encoding %q", enc)
	}
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, limit)
	}
	return body, nil
}

// decodeText decodes body to UTF-8 from the charset that contentType, a
// byte order mark or an HTML <meta> declares (UTF-8 when the body is valid
// UTF-8, else windows-1252, when none does). Bytes invalid in the charset
// read as U+FFFD.
func decodeText(body []byte, contentType string) (string, error) {
	enc, name, _ := charset.DetermineEncoding(body, contentType)
	if name == "utf-8" {
		return jsvalue.DecodeUTF8(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))), nil
	}
	out, _, err := transform.Bytes(enc.NewDecoder(), body)
	if err != nil {
		return "", fmt.Errorf("decode %s body: %w", name, err)
	}
	return jsvalue.DecodeUTF8(out), nil
}

// errFetchTimeout is the cause of a fetch's own deadline: it matches
// ErrTimeout and context.DeadlineExceeded.
type errFetchTimeout struct{ d time.Duration }

func (e errFetchTimeout) Error() string { return fmt.Sprintf("%v after %v", ErrTimeout, e.d) }

func (e errFetchTimeout) Is(target error) bool {
	return target == ErrTimeout || target == context.DeadlineExceeded
}
