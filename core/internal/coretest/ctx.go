package coretest

import (
	"context"
	"reflect"
	"testing"
	"time"
)

// EndedContexts calls each call with a cancelled context and with one past
// its deadline, and reports each that returns anything but that context's
// error, unchanged. Where typ is not nil, every method of typ whose first
// argument is a context must have a call under its name, so that a new
// method fails the test until it has one.
func EndedContexts(t *testing.T, typ reflect.Type, calls map[string]func(context.Context) error) {
	t.Helper()
	if typ != nil {
		ctxType := reflect.TypeFor[context.Context]()
		for i := range typ.NumMethod() {
			if mt := typ.Method(i); mt.Type.NumIn() > 1 && mt.Type.In(1) == ctxType && calls[mt.Name] == nil {
				t.Errorf("%v.%s takes a context and has no case here", typ, mt.Name)
			}
		}
	}
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	expired, cancel2 := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel2()
	for name, call := range calls {
		for _, ctx := range []context.Context{canceled, expired} {
			if err := call(ctx); err != ctx.Err() {
				t.Errorf("%s with an ended context: %v, want %v unchanged", name, err, ctx.Err())
			}
		}
	}
}
