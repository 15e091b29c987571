//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall/js"

	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core/jsawait"
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

	// o200k is the page's one o200k_base tokenizer: GPT3Tokenizer and every
	// default tokenizer. Its ranks are not in folio.wasm (1.7 MB gzipped):
	// bridge.js fetches o200k_base.tiktoken.gz from beside it while the
	// wasm compiles, and hands the bytes over (setRanks) before the page
	// can call anything.
	o200k *tokenizertiktoken.DefaultTokenizer
	ranks rankFile
}

// rankFile holds the rank file bridge.js handed over until the tokenizer
// parses it, or why it could not be fetched.
type rankFile struct {
	mu  sync.Mutex
	raw []byte
	err error
}

// set stores the file, or the reason it could not be fetched.
func (r *rankFile) set(raw []byte, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw, r.err = raw, err
}

// load returns the file once, for the tokenizer to parse, and forgets it.
func (r *rankFile) load() ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	raw, err := r.raw, r.err
	r.raw = nil
	if raw == nil && err == nil {
		err = errors.New("folio: the o200k_base rank file was not handed over: import folio.js, which loads it beside folio.wasm")
	}
	return raw, err
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
	api.Set("setRanks", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if v := arg(args, 0); v.Type() == js.TypeObject {
			b.ranks.set(jsawait.Bytes(v), nil)
		} else {
			b.ranks.set(nil, fmt.Errorf("folio: o200k_base.tiktoken.gz, the tokenizer's ranks, could not be fetched: %s", str(args, 1)))
		}
		return nil
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
