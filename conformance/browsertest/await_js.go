//go:build js && wasm

package browsertest

import (
	"errors"
	"syscall/js"
)

// Await waits for a JavaScript promise to settle, for browser tests that
// drive JavaScript (another library's code in the page, raw IndexedDB). It
// returns the promise's value, or its rejection as an error whose text is
// the rejected value's, with its cause when it has one. It must not be
// called from a JavaScript callback, which may not block.
func Await(promise js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any {
		var v js.Value
		if len(args) > 0 {
			v = args[0]
		}
		ch <- result{v: v}
		return nil
	})
	onErr := js.FuncOf(func(_ js.Value, args []js.Value) any {
		reason := js.Undefined()
		if len(args) > 0 {
			reason = args[0]
		}
		msg := js.Global().Get("String").Invoke(reason).String()
		if reason.Type() == js.TypeObject && reason.Get("cause").Truthy() {
			msg += " (cause: " + js.Global().Get("String").Invoke(reason.Get("cause")).String() + ")"
		}
		ch <- result{err: errors.New(msg)}
		return nil
	})
	defer onOK.Release()
	defer onErr.Release()
	js.Global().Get("Promise").Call("resolve", promise).Call("then", onOK, onErr)
	r := <-ch
	return r.v, r.err
}
