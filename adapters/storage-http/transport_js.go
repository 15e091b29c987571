//go:build js

package storagehttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/textproto"
	"net/url"
	"strconv"
	"syscall/js"

	"github.com/foliovec/folio/core/jsawait"
)

// fetchTransport sends requests with the page's fetch, which follows
// redirects itself (and applies the page's CORS rules to them): an answer
// from an origin the storage does not allow is refused after the fact.
type fetchTransport struct{ allow func(*url.URL) error }

func newTransport(allow func(*url.URL) error) transport { return fetchTransport{allow: allow} }

func (t fetchTransport) roundTrip(ctx context.Context, method string, u *url.URL, h header) (*response, error) {
	controller := js.Global().Get("AbortController").New()
	abort := func() { controller.Call("abort") }
	headers := js.Global().Get("Headers").New()
	for k, vs := range h {
		for _, v := range vs {
			headers.Call("append", k, v)
		}
	}
	init := js.Global().Get("Object").New()
	init.Set("method", method)
	init.Set("headers", headers)
	init.Set("signal", controller.Get("signal"))
	init.Set("cache", "no-store") // the storage keeps what it read, by the file's version
	var promise js.Value
	if err := jsawait.Call(func() { promise = js.Global().Call("fetch", u.String(), init) }); err != nil {
		return nil, err
	}
	resp, err := jsawait.Await(ctx, promise, abort)
	if err != nil {
		return nil, err
	}
	final := u
	if s := resp.Get("url"); s.Type() == js.TypeString && s.String() != "" {
		if f, err := url.Parse(s.String()); err == nil {
			final = f
		}
	}
	if err := t.allow(final); err != nil {
		abort()
		return nil, err
	}
	got := header{}
	each := js.FuncOf(func(_ js.Value, args []js.Value) any {
		got[textproto.CanonicalMIMEHeaderKey(args[1].String())] = append(got[textproto.CanonicalMIMEHeaderKey(args[1].String())], args[0].String())
		return nil
	})
	resp.Get("headers").Call("forEach", each)
	each.Release()
	length := int64(-1)
	if n, err := strconv.ParseInt(got.Get("Content-Length"), 10, 64); err == nil {
		length = n
	}
	r := &response{StatusCode: resp.Get("status").Int(), Header: got, ContentLength: length, URL: final}
	if method == "HEAD" {
		r.Body = io.NopCloser(bytes.NewReader(nil))
		return r, nil
	}
	r.Body = &fetchBody{ctx: ctx, resp: resp, abort: abort}
	return r, nil
}

// fetchBody is an answer's body, read whole from the browser on the first
// Read (the storage asks for bounded ranges, and checks Content-Length
// against its caps before it reads).
type fetchBody struct {
	ctx   context.Context
	resp  js.Value
	abort func()
	r     *bytes.Reader
	err   error
}

func (b *fetchBody) Read(p []byte) (int, error) {
	if b.r == nil && b.err == nil {
		buf, err := jsawait.Await(b.ctx, b.resp.Call("arrayBuffer"), b.abort)
		if err != nil {
			b.err = fmt.Errorf("read the body: %w", err)
		} else {
			b.r = bytes.NewReader(jsawait.Bytes(buf))
		}
	}
	if b.err != nil {
		return 0, b.err
	}
	return b.r.Read(p)
}

// Close stops a body not read to its end.
func (b *fetchBody) Close() error {
	if b.r == nil || b.r.Len() > 0 {
		b.abort()
	}
	return nil
}
