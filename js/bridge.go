//go:build js && wasm

package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"syscall/js"
)

// handles holds the Go objects JavaScript refers to by number. folio.js
// releases a handle when its object is garbage-collected (a
// FinalizationRegistry) or closed.
type handles struct {
	mu   sync.Mutex
	next int
	objs map[int]any
}

func (h *handles) add(v any) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	h.objs[h.next] = v
	return h.next
}

func (h *handles) get(id int) (any, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.objs[id]
	return v, ok
}

func (h *handles) release(id int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.objs, id)
}

// handleOf is the Go object behind a JavaScript object made by folio.js
// (its _h property), if v is one.
func (b *bridge) handleOf(v js.Value) (any, bool) {
	if v.Type() != js.TypeObject {
		return nil, false
	}
	h := prop(v, "_h")
	if h.Type() != js.TypeNumber {
		return nil, false
	}
	return b.handles.get(h.Int())
}

// method is one method of a Go object: its arguments are the JavaScript
// values after the method name. An asynchronous method runs in its own
// goroutine and its result resolves a Promise.
type method func(ctx context.Context, obj any, args []js.Value) (any, error)

// raw is a result handed to JavaScript as it is, not as JSON.
type raw struct{ v js.Value }

// bridge is globalThis.__folio.
type bridge struct {
	handles handles
	// methods are the asynchronous methods, by type name then method name;
	// sync are those answered at once (no I/O, no JavaScript awaited).
	methods map[string]map[string]method
	sync    map[string]map[string]method
	// constructors make Go objects; statics are functions of no object.
	constructors map[string]func(args []js.Value) (any, error)
	statics      map[string]func(args []js.Value) (any, error)
}

// kind names the method table of obj.
func kind(obj any) string { return fmt.Sprintf("%T", obj) }

// export puts the bridge on globalThis.__folio.
func (b *bridge) export() {
	api := js.Global().Get("Object").New()
	api.Set("create", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return b.syncCall(func() (any, error) {
			name := str(args, 0)
			ctor, ok := b.constructors[name]
			if !ok {
				return nil, fmt.Errorf("folio: no constructor %q", name)
			}
			obj, err := ctor(args[1:])
			if err != nil {
				return nil, err
			}
			return b.handles.add(obj), nil
		})
	}))
	api.Set("call", js.FuncOf(func(_ js.Value, args []js.Value) any {
		obj, m, rest, err := b.lookup(b.methods, args)
		if err != nil {
			return rejected(err)
		}
		return promise(func(ctx context.Context) (any, error) { return m(ctx, obj, rest) })
	}))
	api.Set("callSync", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return b.syncCall(func() (any, error) {
			obj, m, rest, err := b.lookup(b.sync, args)
			if err != nil {
				return nil, err
			}
			return m(context.Background(), obj, rest)
		})
	}))
	api.Set("static", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return b.syncCall(func() (any, error) {
			f, ok := b.statics[str(args, 0)]
			if !ok {
				return nil, fmt.Errorf("folio: no function %q", str(args, 0))
			}
			return f(args[1:])
		})
	}))
	api.Set("release", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) > 0 && args[0].Type() == js.TypeNumber {
			b.handles.release(args[0].Int())
		}
		return nil
	}))
	js.Global().Set("__folio", api)
}

// lookup finds the object and method named by args (handle, name, ...).
func (b *bridge) lookup(table map[string]map[string]method, args []js.Value) (any, method, []js.Value, error) {
	if len(args) < 2 || args[0].Type() != js.TypeNumber {
		return nil, nil, nil, errors.New("folio: a call needs an object and a method")
	}
	obj, ok := b.handles.get(args[0].Int())
	if !ok {
		return nil, nil, nil, errors.New("folio: the object was released")
	}
	name := args[1].String()
	m, ok := table[kind(obj)][name]
	if !ok {
		return nil, nil, nil, fmt.Errorf("folio: %s has no method %q", kind(obj), name)
	}
	return obj, m, args[2:], nil
}

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

// toJS converts a Go result: nil is undefined, a raw value passes as it
// is, anything else goes through JSON.
func toJS(v any) (any, error) {
	switch v := v.(type) {
	case nil:
		return js.Undefined(), nil
	case raw:
		return v.v, nil
	case js.Value:
		return v, nil
	case string, bool, int, float64:
		return v, nil
	case packed:
		return v.toJS()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return js.Global().Get("JSON").Call("parse", string(b)), nil
}

// toJS parses the answer's JSON with a reviver that puts each vector in
// place of its reference, from one Float32Array of them all.
func (p packed) toJS() (any, error) {
	b, err := json.Marshal(p.v)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, v := range p.vs.list {
		n += len(v)
	}
	flat := make([]byte, 0, 4*n)
	offsets := make([]any, 0, len(p.vs.list)+1)
	offsets = append(offsets, 0)
	for _, v := range p.vs.list {
		for _, f := range v {
			flat = binary.LittleEndian.AppendUint32(flat, math.Float32bits(f))
		}
		offsets = append(offsets, len(flat)/4)
	}
	all := js.Global().Get("Float32Array").New(uint8Array(flat).Get("buffer"))
	reviver := js.Global().Get("Function").New("all", "offsets",
		`return (key, value) => key === "vector" && value !== null && typeof value === "object" && "\u0000v" in value
			? Array.from(all.subarray(offsets[value["\u0000v"]], offsets[value["\u0000v"] + 1])) : value;`)
	return js.Global().Get("JSON").Call("parse", string(b), reviver.Invoke(all, js.ValueOf(offsets))), nil
}

// fromJSON decodes a JavaScript value through JSON into v. undefined and
// null leave v as it is.
func fromJSON(val js.Value, v any) error {
	if val.IsUndefined() || val.IsNull() {
		return nil
	}
	s := js.Global().Get("JSON").Call("stringify", val)
	if s.IsUndefined() {
		return nil
	}
	return json.Unmarshal([]byte(s.String()), v)
}

// str is args[i] as a string, "" when missing or not a string.
func str(args []js.Value, i int) string {
	if i < len(args) && args[i].Type() == js.TypeString {
		return args[i].String()
	}
	return ""
}

// num is args[i] as an int, def when missing or not a number.
func num(args []js.Value, i, def int) int {
	if i < len(args) && args[i].Type() == js.TypeNumber {
		return args[i].Int()
	}
	return def
}

// arg is args[i], undefined when missing.
func arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

// bytesOf reads a Uint8Array, an ArrayBuffer, a typed array or a string.
func bytesOf(v js.Value) ([]byte, error) {
	switch v.Type() {
	case js.TypeString:
		return []byte(v.String()), nil
	case js.TypeObject:
		u8 := js.Global().Get("Uint8Array")
		if kind := tag(v); kind == "ArrayBuffer" {
			v = u8.New(v)
		} else if kind != "Uint8Array" {
			buf := prop(v, "buffer")
			if tag(buf) != "ArrayBuffer" {
				return nil, errors.New("folio: want bytes (a Uint8Array, an ArrayBuffer or a string)")
			}
			v = u8.New(buf, prop(v, "byteOffset"), prop(v, "byteLength"))
		}
		out := make([]byte, prop(v, "byteLength").Int())
		js.CopyBytesToGo(out, v)
		return out, nil
	case js.TypeUndefined, js.TypeNull:
		return []byte{}, nil
	}
	return nil, fmt.Errorf("folio: want bytes, got %s", v.Type())
}

// uint8Array copies b into a new Uint8Array.
func uint8Array(b []byte) js.Value {
	out := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(out, b)
	return out
}
