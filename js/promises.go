//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"syscall/js"
)

// syncCall runs f and answers {value} or {error}: folio.js throws the
// error. A panic in f is answered as an error.
func (b *bridge) syncCall(f func() (any, error)) (out any) {
	defer func() {
		if r := recover(); r != nil {
			out = errorResult(panicError(r))
		}
	}()
	v, err := f()
	if err != nil {
		return errorResult(err)
	}
	jv, err := toJS(v)
	if err != nil {
		return errorResult(err)
	}
	res := js.Global().Get("Object").New()
	res.Set("value", jv)
	return res
}

func errorResult(err error) js.Value {
	res := js.Global().Get("Object").New()
	res.Set("error", jsError(err))
	return res
}

// panicError is a recovered panic as an error: an error value (such as
// one a JavaScript tokenizer threw) as it is, anything else as an
// internal error.
func panicError(r any) error {
	if err, ok := r.(error); ok {
		return err
	}
	return fmt.Errorf("folio: internal error: %v", r)
}

// promise runs f in its own goroutine (a JavaScript callback must not
// block) and returns a Promise of its result. A panic in f rejects it.
func promise(f func(ctx context.Context) (any, error)) js.Value {
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, pr []js.Value) any {
		resolve, reject := pr[0], pr[1]
		go func() {
			defer executor.Release()
			v, err := func() (v any, err error) {
				defer func() {
					if r := recover(); r != nil {
						err = panicError(r)
					}
				}()
				v, err = f(context.Background())
				if err != nil {
					return nil, err
				}
				return toJS(v)
			}()
			if err != nil {
				reject.Invoke(jsError(err))
				return
			}
			resolve.Invoke(v)
		}()
		return nil
	})
	return js.Global().Get("Promise").New(executor)
}

func rejected(err error) js.Value {
	return js.Global().Get("Promise").Call("reject", jsError(err))
}

// jsError is err as a JavaScript Error with err's message (which keeps
// the message of an error a page's object threw).
func jsError(err error) js.Value {
	return js.Global().Get("Error").New(err.Error())
}
