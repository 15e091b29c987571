//go:build js && wasm

// Package jsawait waits, from Go compiled to js/wasm, for the JavaScript
// promises of the page's APIs (fetch, Response.arrayBuffer, …), and turns
// what JavaScript throws into Go errors. The adapters that call the
// browser's APIs share it.
//
// # Concurrency
//
// Await blocks its goroutine, never the page: call it from a goroutine
// other than the one running a JavaScript callback, as every Go call
// answering a page's promise is.
//
// # Errors
//
// A rejection or a thrown exception becomes an error whose message is the
// JavaScript error's message (or the thrown value as a string); a context
// that ends first gives the context's error.
package jsawait

import (
	"context"
	"errors"
	"syscall/js"
)

// Await waits for promise to settle and returns its value; a rejection is
// an error (see Error). When ctx ends first, cancel runs (nil: nothing
// runs), typically aborting the work through an AbortController, and
// ctx's error is returned at once; the callbacks are released once the
// promise settles.
func Await(ctx context.Context, promise js.Value, cancel func()) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any { ch <- result{v: arg(args)}; return nil })
	onErr := js.FuncOf(func(_ js.Value, args []js.Value) any { ch <- result{err: Error(arg(args))}; return nil })
	release := func() {
		onOK.Release()
		onErr.Release()
	}
	if err := Call(func() { promise.Call("then", onOK, onErr) }); err != nil {
		release()
		return js.Undefined(), err
	}
	select {
	case r := <-ch:
		release()
		return r.v, r.err
	case <-ctx.Done():
		if cancel != nil {
			cancel()
		}
		go func() {
			<-ch
			release()
		}()
		return js.Undefined(), ctx.Err()
	}
}

// Call runs f, returning a JavaScript exception it throws as an error (see
// Error). Other panics pass through.
func Call(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			jsErr, ok := r.(js.Error)
			if !ok {
				panic(r)
			}
			err = Error(jsErr.Value)
		}
	}()
	f()
	return nil
}

// Error turns a thrown or rejected JavaScript value into an error: its
// message when it has one, else the value as JavaScript's String() writes
// it.
func Error(v js.Value) error {
	if v.Type() == js.TypeObject {
		if m := v.Get("message"); m.Type() == js.TypeString {
			return errors.New(m.String())
		}
	}
	return errors.New(js.Global().Get("String").Invoke(v).String())
}

// Bytes copies an ArrayBuffer or a typed array into a new Go slice.
func Bytes(buf js.Value) []byte {
	arr := buf
	if buf.InstanceOf(js.Global().Get("ArrayBuffer")) {
		arr = js.Global().Get("Uint8Array").New(buf)
	} else if !buf.InstanceOf(js.Global().Get("Uint8Array")) {
		arr = js.Global().Get("Uint8Array").New(buf.Get("buffer"), buf.Get("byteOffset"), buf.Get("byteLength"))
	}
	out := make([]byte, arr.Get("byteLength").Int())
	js.CopyBytesToGo(out, arr)
	return out
}

func arg(args []js.Value) js.Value {
	if len(args) == 0 {
		return js.Undefined()
	}
	return args[0]
}
