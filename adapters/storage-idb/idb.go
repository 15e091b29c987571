//go:build js && wasm

package storageidb

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall/js"
)

// The IndexedDB layer: one transaction at a time, driven from JavaScript
// callbacks. A transaction commits by itself once no request is pending at
// the end of a JavaScript task, so every request after the first is issued
// from the callback of the one before, never from a goroutine woken by it.

// Store names, as Vectra's IndexedDBStorage creates them.
const (
	filesStore   = "files"
	foldersStore = "folders"
	parentIndex  = "parentPath"
)

// txn is one IndexedDB transaction over both stores.
type txn struct {
	tx    js.Value
	funcs []js.Func
	err   error // the first failure; the transaction is aborted with it
	once  sync.Once
	done  chan struct{}
}

// transact runs one transaction over both stores in mode ("readonly" or
// "readwrite"): body issues the first requests, whose callbacks may issue
// more or call fail. It returns nil once the transaction has committed,
// the error given to fail or the one IndexedDB reports when it aborted,
// and ctx's error when ctx ended first (the transaction is then aborted).
func transact(ctx context.Context, db js.Value, mode string, body func(t *txn)) (err error) {
	t := &txn{done: make(chan struct{})}
	defer t.release()
	if err := jsCall(func() { t.tx = db.Call("transaction", js.ValueOf([]any{filesStore, foldersStore}), mode) }); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	t.tx.Set("oncomplete", t.fn(func(js.Value) { t.finish() }))
	t.tx.Set("onabort", t.fn(func(js.Value) {
		if t.err == nil {
			t.err = domError("transaction aborted", t.tx.Get("error"))
		}
		t.finish()
	}))
	body(t)
	select {
	case <-t.done:
	case <-ctx.Done():
		// Abort unless the transaction has already committed, in which
		// case its outcome stands.
		if jsCall(func() { t.tx.Call("abort") }) == nil && t.err == nil {
			t.err = ctx.Err()
		}
		<-t.done // the abort event follows at once; nothing may call the funcs after release
	}
	return t.err
}

// fn wraps f as a JavaScript function released with the transaction.
func (t *txn) fn(f func(arg js.Value)) js.Func {
	jf := js.FuncOf(func(_ js.Value, args []js.Value) any {
		var arg js.Value
		if len(args) > 0 {
			arg = args[0]
		}
		f(arg)
		return nil
	})
	t.funcs = append(t.funcs, jf)
	return jf
}

func (t *txn) finish() { t.once.Do(func() { close(t.done) }) }

func (t *txn) release() {
	for _, f := range t.funcs {
		f.Release()
	}
}

// fail records err, unless a failure is already recorded, and aborts the
// transaction; nothing it wrote is kept.
func (t *txn) fail(err error) {
	if t.err == nil {
		t.err = err
	}
	_ = jsCall(func() { t.tx.Call("abort") }) // fails only when the transaction has already finished
}

// request issues a request on store through call and passes its result to
// then, inside the transaction. A failed request aborts the transaction
// with its error.
func (t *txn) request(store string, call func(store js.Value) js.Value, then func(result js.Value)) {
	if t.err != nil {
		return
	}
	var req js.Value
	if err := jsCall(func() { req = call(t.tx.Call("objectStore", store)) }); err != nil {
		t.fail(err)
		return
	}
	req.Set("onsuccess", t.fn(func(js.Value) {
		if then != nil && t.err == nil {
			then(req.Get("result"))
		}
	}))
	req.Set("onerror", t.fn(func(ev js.Value) {
		if t.err == nil {
			t.err = domError("request failed", req.Get("error"))
		}
		// The error event aborts the transaction after this handler.
	}))
}

// get passes the record at key in store, or undefined, to then.
func (t *txn) get(store, key string, then func(record js.Value)) {
	t.request(store, func(s js.Value) js.Value { return s.Call("get", key) }, then)
}

// put stores record in store, replacing any with its key.
func (t *txn) put(store string, record js.Value) {
	t.request(store, func(s js.Value) js.Value { return s.Call("put", record) }, nil)
}

// add stores record in store; the transaction fails if its key exists.
func (t *txn) add(store string, record js.Value) {
	t.request(store, func(s js.Value) js.Value { return s.Call("add", record) }, nil)
}

// del deletes the records whose keys key (a string or an IDBKeyRange) names.
func (t *txn) del(store string, key js.Value) {
	t.request(store, func(s js.Value) js.Value { return s.Call("delete", key) }, nil)
}

// children passes every record of store whose parentPath is parent to then.
func (t *txn) children(store, parent string, then func(records []js.Value)) {
	t.request(store, func(s js.Value) js.Value { return s.Call("index", parentIndex).Call("getAll", parent) }, func(all js.Value) {
		records := make([]js.Value, all.Length())
		for i := range records {
			records[i] = all.Index(i)
		}
		then(records)
	})
}

// keyRangeBelow is the range of keys that start with folder + "/": from
// that prefix up to, not including, the same prefix with "/" replaced by
// the next code unit, "0".
func keyRangeBelow(folder string) js.Value {
	return js.Global().Get("IDBKeyRange").Call("bound", folder+"/", folder+"0", false, true)
}

// jsCall runs f, returning a JavaScript exception it throws as an error.
func jsCall(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			jsErr, ok := r.(js.Error)
			if !ok {
				panic(r)
			}
			err = domError("", jsErr.Value)
		}
	}()
	f()
	return nil
}

// domError turns a DOMException (or any thrown value) into an error.
func domError(what string, v js.Value) error {
	msg := "unknown error"
	if v.Type() == js.TypeObject {
		name, m := v.Get("name"), v.Get("message")
		switch {
		case name.Type() == js.TypeString && m.Type() == js.TypeString:
			msg = name.String() + ": " + m.String()
		case m.Type() == js.TypeString:
			msg = m.String()
		}
	} else if v.Truthy() {
		msg = v.String()
	}
	err := &DOMError{Name: jsString(v, "name"), Message: msg}
	if what == "" {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

func jsString(v js.Value, field string) string {
	if v.Type() != js.TypeObject {
		return ""
	}
	if f := v.Get(field); f.Type() == js.TypeString {
		return f.String()
	}
	return ""
}

// DOMError is an error IndexedDB reported: a DOMException's name
// ("QuotaExceededError", "ConstraintError", …) and message.
type DOMError struct {
	Name    string
	Message string
}

func (e *DOMError) Error() string { return "indexeddb: " + e.Message }

// openDB opens (and on first use creates) the database name at version 1
// with Vectra's stores and indexes.
func openDB(ctx context.Context, name string) (js.Value, error) {
	factory := js.Global().Get("indexedDB")
	if !factory.Truthy() {
		return js.Value{}, errors.New("indexeddb: not available in this environment")
	}
	type result struct {
		db  js.Value
		err error
	}
	ch := make(chan result, 1)
	var req js.Value
	var funcs []js.Func
	fn := func(f func()) js.Func {
		jf := js.FuncOf(func(js.Value, []js.Value) any { f(); return nil })
		funcs = append(funcs, jf)
		return jf
	}
	if err := jsCall(func() { req = factory.Call("open", name, 1) }); err != nil {
		return js.Value{}, fmt.Errorf("open database %q: %w", name, err)
	}
	req.Set("onupgradeneeded", fn(func() {
		db := req.Get("result")
		for _, store := range []string{filesStore, foldersStore} {
			if !db.Get("objectStoreNames").Call("contains", store).Bool() {
				s := db.Call("createObjectStore", store, map[string]any{"keyPath": "path"})
				s.Call("createIndex", parentIndex, parentIndex, map[string]any{"unique": false})
			}
		}
	}))
	req.Set("onsuccess", fn(func() { ch <- result{db: req.Get("result")} }))
	req.Set("onerror", fn(func() { ch <- result{err: domError("open database "+name, req.Get("error"))} }))
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		// An open request cannot be aborted: close the connection it
		// makes, if it succeeds, once it arrives.
		go func() {
			if late := <-ch; late.err == nil {
				late.db.Call("close")
			}
			for _, f := range funcs {
				f.Release()
			}
		}()
		return js.Value{}, ctx.Err()
	}
	for _, f := range funcs {
		f.Release()
	}
	return r.db, r.err
}

// deleteDB deletes the database name, waiting while other connections to
// it stay open, until ctx ends.
func deleteDB(ctx context.Context, name string) error {
	factory := js.Global().Get("indexedDB")
	if !factory.Truthy() {
		return errors.New("indexeddb: not available in this environment")
	}
	ch := make(chan error, 1)
	var req js.Value
	if err := jsCall(func() { req = factory.Call("deleteDatabase", name) }); err != nil {
		return err
	}
	onSuccess := js.FuncOf(func(js.Value, []js.Value) any { ch <- nil; return nil })
	onError := js.FuncOf(func(js.Value, []js.Value) any { ch <- domError("delete database", req.Get("error")); return nil })
	release := func() { onSuccess.Release(); onError.Release() }
	req.Set("onsuccess", onSuccess)
	req.Set("onerror", onError)
	select {
	case err := <-ch:
		release()
		return err
	case <-ctx.Done():
		// The deletion stays queued; release the handlers once it is done.
		go func() { <-ch; release() }()
		return ctx.Err()
	}
}
