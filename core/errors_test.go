package core

import (
	"context"
	"errors"
	"math"
	"testing"
)

// Every error of an operation is one *Error naming the operation and its
// key once; sentinels match through it, and an ended context is reported
// as itself.
func TestErrorNamesTheOperationOnce(t *testing.T) {
	ctx := context.Background()
	ix, _ := newCreatedIndex(t, CreateIndexConfig{Version: 1})
	item := IndexItem{ID: "42", Vector: []float32{1, 0}}
	if _, err := ix.InsertItem(ctx, item); err != nil {
		t.Fatal(err)
	}
	_, err := ix.InsertItem(ctx, item)
	var e *Error
	if !errors.As(err, &e) || e.Op != "insert item" || e.Key != "42" || !errors.Is(err, ErrItemExists) {
		t.Fatalf("a second insert: %#v, want an *Error of insert item on 42 wrapping ErrItemExists", err)
	}
	if got, want := err.Error(), `insert item "42": item exists`; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	// A query vector refused before the scan, alone and in a batch.
	_, err = ix.QueryItems(ctx, []float32{1, 0, 0}, "", 1, nil, false)
	if !errors.As(err, &e) || e.Op != "query items" || !errors.Is(err, ErrDimensionMismatch) {
		t.Fatalf("a query of the wrong length: %#v, want an *Error of query items wrapping ErrDimensionMismatch", err)
	}
	_, err = ix.QueryItemsBatch(ctx, []ItemQuery{{Vector: []float32{1, 0}, TopK: 1}, {Vector: []float32{float32(math.NaN()), 0}, TopK: 1}})
	if !errors.As(err, &e) || !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a batch with a NaN query: %#v, want an *Error wrapping ErrInvalidArgument", err)
	}

	for _, tc := range []struct {
		op, key string
		err     error
		want    string
	}{
		{"list items", "", ErrIndexNotFound, "list items: index does not exist"},
		{"query documents", "rivers", ErrInvalidArgument, `query documents "rivers": invalid argument`},
	} {
		if got := WrapOp(ctx, tc.op, tc.key, tc.err); got.Error() != tc.want || !errors.Is(got, tc.err) {
			t.Errorf("WrapOp(%q, %q, %v) = %q, want %q wrapping it", tc.op, tc.key, tc.err, got, tc.want)
		}
	}
	if WrapOp(ctx, "op", "key", nil) != nil {
		t.Error("WrapOp of nil is not nil")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if got := WrapOp(cancelled, "op", "key", &Error{Op: "inner", Err: context.Canceled}); got != context.Canceled {
		t.Errorf("WrapOp after ctx ended = %#v, want context.Canceled itself", got)
	}
}
