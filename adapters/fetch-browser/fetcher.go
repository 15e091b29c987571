//go:build js && wasm

package fetchbrowser

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"syscall/js"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/jsawait"
)

// DefaultMaxBodyBytes caps a response body unless Options.MaxBodyBytes
// says otherwise: 20 MiB.
const DefaultMaxBodyBytes = 20 << 20

// Options configure a BrowserWebFetcher. The zero value is Vectra's
// default.
type Options struct {
	// KeepHTML reports HTML pages as they are, with docType "html", instead
	// of converting them to markdown (Vectra's htmlToMarkdown: false).
	KeepHTML bool
	// Headers are sent with every request, and no others: the browser adds
	// its own. The map is read, never changed.
	Headers map[string]string
	// Mode is the request mode: "cors" (when empty), "same-origin" or
	// "no-cors".
	Mode string
	// Credentials says when cookies are sent: "same-origin" (when empty),
	// "include" or "omit".
	Credentials string
	// MaxBodyBytes caps a response body; a larger one is ErrBodyTooLarge.
	// 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
}

// BrowserWebFetcher fetches one web page per uri with the browser's own
// fetch, as Vectra 0.15's BrowserWebFetcher does: a GET with the mode,
// credentials and headers of its Options; a response that is not ok is an
// *HTTPStatusError ("HTTP 404: Not Found"); a missing Content-Type is
// text/plain; the media type, trimmed and lowercased, must contain one of
// text/html, application/json, application/xml, application/javascript,
// text/plain, text/markdown or text/xml (else ErrContentType). HTML is
// converted to markdown by [HTMLToMarkdown] against the uri and reported
// with docType "md", unless Options.KeepHTML; other text is reported with
// the docType of its type: html, md, xml, json, js, none for text/plain.
//
// Fixed over Vectra: ctx aborts the request; the body is capped
// (Options.MaxBodyBytes); it is decoded from the charset its Content-Type
// names (Vectra always reads UTF-8); the uri must be http or https, or
// relative to the page, which it is resolved against.
//
// A BrowserWebFetcher is safe for concurrent use.
type BrowserWebFetcher struct {
	opts Options
}

var _ core.TextFetcher = (*BrowserWebFetcher)(nil)

// New returns a BrowserWebFetcher; nil opts are the defaults. It keeps a
// copy of opts.Headers.
func New(o *Options) *BrowserWebFetcher {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.Mode == "" {
		opts.Mode = "cors"
	}
	if opts.Credentials == "" {
		opts.Credentials = "same-origin"
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	headers := make(map[string]string, len(opts.Headers))
	for k, v := range opts.Headers {
		headers[k] = v
	}
	opts.Headers = headers
	return &BrowserWebFetcher{opts: opts}
}

// Fetch gets the page at uri and reports it to onDocument under uri. See
// BrowserWebFetcher for the rules.
func (f *BrowserWebFetcher) Fetch(ctx context.Context, uri string, onDocument func(ctx context.Context, uri, text, docType string) (bool, error)) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("fetch %q: %w", uri, err)
	}
	text, docType, err := f.get(ctx, uri)
	if err != nil {
		return false, err
	}
	return onDocument(ctx, uri, text, docType)
}

// resolve returns uri as an absolute http or https URL, resolving a
// relative one against the page's address.
func resolve(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	if !u.IsAbs() {
		loc := js.Global().Get("location")
		if !loc.Truthy() {
			return "", fmt.Errorf("%w: a relative uri needs a page to resolve against", core.ErrInvalidArgument)
		}
		base, err := url.Parse(loc.Get("href").String())
		if err != nil {
			return "", err
		}
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%w: the scheme must be http or https", core.ErrInvalidArgument)
	}
	return u.String(), nil
}

// get fetches uri and returns its text and docType.
func (f *BrowserWebFetcher) get(ctx context.Context, uri string) (text, docType string, err error) {
	abs, err := resolve(uri)
	if err != nil {
		return "", "", fmt.Errorf("fetch %q: %w", uri, err)
	}
	controller := js.Global().Get("AbortController").New()
	headers := js.Global().Get("Object").New()
	for k, v := range f.opts.Headers {
		headers.Set(k, v)
	}
	init := js.Global().Get("Object").New()
	init.Set("method", "GET")
	init.Set("headers", headers)
	init.Set("mode", f.opts.Mode)
	init.Set("credentials", f.opts.Credentials)
	init.Set("signal", controller.Get("signal"))
	var promise js.Value
	if err := jsawait.Call(func() { promise = js.Global().Call("fetch", abs, init) }); err != nil {
		return "", "", fmt.Errorf("fetch %q: %w", uri, err)
	}
	abort := func() { controller.Call("abort") }
	resp, err := jsawait.Await(ctx, promise, abort)
	if err != nil {
		return "", "", fmt.Errorf("fetch %q: %w", uri, err)
	}
	if !resp.Get("ok").Bool() {
		controller.Call("abort") // the body is not read
		return "", "", &HTTPStatusError{URL: uri, StatusCode: resp.Get("status").Int(), StatusText: resp.Get("statusText").String()}
	}
	header := ""
	if ct := resp.Get("headers").Call("get", "content-type"); ct.Type() == js.TypeString {
		header = ct.String()
	}
	mt := mediaType(header)
	if !accepted(mt) {
		controller.Call("abort")
		return "", "", fmt.Errorf("fetch %q: %w: %s", uri, ErrContentType, header)
	}
	if cl := resp.Get("headers").Call("get", "content-length"); cl.Type() == js.TypeString {
		if n, err := strconv.ParseInt(cl.String(), 10, 64); err == nil && n > f.opts.MaxBodyBytes {
			controller.Call("abort")
			return "", "", fmt.Errorf("fetch %q: %w: %d bytes, the cap is %d", uri, ErrBodyTooLarge, n, f.opts.MaxBodyBytes)
		}
	}
	buf, err := jsawait.Await(ctx, resp.Call("arrayBuffer"), abort)
	if err != nil {
		return "", "", fmt.Errorf("fetch %q: read body: %w", uri, err)
	}
	if n := int64(buf.Get("byteLength").Int()); n > f.opts.MaxBodyBytes {
		return "", "", fmt.Errorf("fetch %q: %w: %d bytes, the cap is %d", uri, ErrBodyTooLarge, n, f.opts.MaxBodyBytes)
	}
	text = decode(buf, header)
	if !f.opts.KeepHTML && contains(mt, "text/html") {
		return HTMLToMarkdown(text, abs), "md", nil
	}
	return text, docTypeOf(mt), nil
}

// decode turns a body into text with the browser's TextDecoder, from the
// charset the Content-Type header names, UTF-8 when it names none or one
// the browser does not know.
func decode(buf js.Value, header string) string {
	label := charset(header)
	var dec js.Value
	if err := jsawait.Call(func() { dec = js.Global().Get("TextDecoder").New(label) }); err != nil {
		dec = js.Global().Get("TextDecoder").New("utf-8")
	}
	return dec.Call("decode", buf).String()
}
