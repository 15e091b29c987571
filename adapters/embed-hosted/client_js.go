//go:build js && wasm

package embedhosted

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"syscall/js"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/jsawait"
)

// checkClient refuses Options.HTTPClient in js/wasm, where the requests go
// through the page's fetch directly: Go's http.Client would do the same
// through its fetch transport, but linking it adds about 1 MB (gzipped) of
// transport and TLS code to every page that embeds Folio.
func checkClient(o Options) error {
	if o.HTTPClient != nil {
		return fmt.Errorf("HTTPClient: not used in js/wasm, where requests go through the page's fetch: %w", core.ErrInvalidArgument)
	}
	return nil
}

// do sends req with the page's fetch, as Go's fetch transport does: the
// request's context aborts it, and the whole body is read before do
// returns.
func (h *HostedEmbeddings) do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	headers := js.Global().Get("Headers").New()
	controller := js.Global().Get("AbortController").New()
	abort := func() { controller.Call("abort") }
	init := js.Global().Get("Object").New()
	init.Set("method", req.Method)
	init.Set("headers", headers)
	init.Set("signal", controller.Get("signal"))
	if len(body) > 0 {
		arr := js.Global().Get("Uint8Array").New(len(body))
		js.CopyBytesToJS(arr, body)
		init.Set("body", arr)
	}
	var promise js.Value
	err = jsawait.Call(func() {
		for k, vs := range req.Header {
			for _, v := range vs {
				headers.Call("append", k, v)
			}
		}
		promise = js.Global().Call("fetch", req.URL.String(), init)
	})
	if err != nil {
		return nil, err
	}
	resp, err := jsawait.Await(ctx, promise, abort)
	if err != nil {
		return nil, err
	}
	buf, err := jsawait.Await(ctx, resp.Call("arrayBuffer"), abort)
	if err != nil {
		return nil, err
	}
	header := http.Header{}
	each := js.FuncOf(func(_ js.Value, args []js.Value) any {
		header.Add(args[1].String(), args[0].String())
		return nil
	})
	resp.Get("headers").Call("forEach", each)
	each.Release()
	data := jsawait.Bytes(buf)
	code := resp.Get("status").Int()
	return &http.Response{
		Status:        strconv.Itoa(code) + " " + resp.Get("statusText").String(),
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          io.NopCloser(bytes.NewReader(data)),
		ContentLength: int64(len(data)),
		Request:       req,
	}, nil
}
