//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall/js"

	"github.com/foliovec/folio/core"
)

// jsThrown is an error thrown or rejected in JavaScript, with the
// JavaScript error's message.
type jsThrown struct {
	value   js.Value
	message string
}

func (e *jsThrown) Error() string { return e.message }

// thrown wraps a thrown or rejected JavaScript value. It runs on
// JavaScript's callback goroutine too (a rejection's handler), where a
// panic would end the program: a reason whose message cannot be read
// (a Proxy, a getter that throws) is answered as unreadable.
func thrown(v js.Value) (err error) {
	defer func() {
		if recover() != nil {
			err = &jsThrown{value: v, message: "(a reason that cannot be read)"}
		}
	}()
	msg := "(no reason given)"
	switch {
	case v.Type() == js.TypeObject && prop(v, "message").Type() == js.TypeString:
		msg = prop(v, "message").String()
	case v.Type() == js.TypeString:
		msg = v.String()
	case !v.IsUndefined() && !v.IsNull():
		msg = js.Global().Call("String", v).String()
	}
	return &jsThrown{value: v, message: msg}
}

// storageError matches what a FileStorage written in JavaScript threw to
// io/fs's sentinels, so Folio reads it as it reads its own storages'
// errors: Vectra's storages say "File not found: x", "Path not found: x"
// and "File already exists: x"; Node's errors carry a code.
func storageError(err error) error {
	var e *jsThrown
	if !errors.As(err, &e) {
		return err
	}
	code := ""
	if e.value.Type() == js.TypeObject && prop(e.value, "code").Type() == js.TypeString {
		code = prop(e.value, "code").String()
	}
	switch {
	case code == "ENOENT" || hasPhrase(e.message, "not found", "no such file", "does not exist"):
		return fmt.Errorf("%w: %w", err, fs.ErrNotExist)
	case code == "EEXIST" || hasPhrase(e.message, "already exists"):
		return fmt.Errorf("%w: %w", err, fs.ErrExist)
	}
	return err
}

// invoke calls obj[name](args...) and awaits its result when it is a
// Promise (or any thenable). A synchronous throw or a rejection is an
// error with the JavaScript message. It must not run on JavaScript's own
// callback goroutine: it blocks until the event loop settles the Promise.
func invoke(ctx context.Context, obj js.Value, name string, args ...any) (js.Value, error) {
	f := prop(obj, name)
	if f.Type() != js.TypeFunction {
		return js.Undefined(), fmt.Errorf("folio: the object given has no %s method: %w", name, core.ErrInvalidArgument)
	}
	v, err := callJS(func() js.Value { return obj.Call(name, args...) })
	if err != nil {
		return js.Undefined(), err
	}
	return await(ctx, v)
}

// callJS runs f, turning a JavaScript exception into an error.
func callJS(f func() js.Value) (v js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			if je, ok := r.(js.Error); ok {
				err = thrown(je.Value)
				return
			}
			panic(r)
		}
	}()
	return f(), nil
}

type settled struct {
	v   js.Value
	err error
}

// await waits for a thenable to settle; any other value is its own result.
func await(ctx context.Context, v js.Value) (js.Value, error) {
	if v.Type() != js.TypeObject || prop(v, "then").Type() != js.TypeFunction {
		return v, nil
	}
	ch := make(chan settled, 1)
	var onValue, onError js.Func
	onValue = js.FuncOf(func(_ js.Value, a []js.Value) any {
		ch <- settled{v: arg(a, 0)}
		return nil
	})
	onError = js.FuncOf(func(_ js.Value, a []js.Value) any {
		ch <- settled{err: thrown(arg(a, 0))}
		return nil
	})
	if _, err := callJS(func() js.Value { return v.Call("then", onValue, onError) }); err != nil {
		onValue.Release()
		onError.Release()
		return js.Undefined(), err
	}
	select {
	case s := <-ch:
		onValue.Release()
		onError.Release()
		return s.v, s.err
	case <-ctx.Done():
		go func() { // release the callbacks once the Promise settles
			<-ch
			onValue.Release()
			onError.Release()
		}()
		return js.Undefined(), ctx.Err()
	}
}

var _ core.EmbeddingsModel = jsEmbeddings{}

var _ core.ContextTokenizer = jsTokenizer{}

var _ core.FileStorage = jsStorage{}
