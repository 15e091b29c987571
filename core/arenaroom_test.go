package core

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"unsafe"
)

// After an open, inserts append their vectors in the room the arena was
// given (ArenaRoom) instead of copying every vector: the new state's
// vectors share the opened state's memory, and the opened state, which
// readers may still hold, reads exactly what it held.
func TestInsertsAfterAnOpenAppendInPlace(t *testing.T) {
	ctx := context.Background()
	_, st := newCreatedIndex(t, CreateIndexConfig{Version: 1})
	ix := reopen(t, st)
	items := make([]IndexItem, 1000)
	for i := range items {
		items[i] = IndexItem{ID: fmt.Sprint("i", i), Vector: []float32{float32(i), 1, 2, 3}}
	}
	if _, err := ix.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	ix = reopen(t, st)
	before, err := ix.snapshot(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cap(before.Arena), ArenaRoom(1000)*4; got < want {
		t.Fatalf("opened arena has capacity %d, want room for %d floats", got, want)
	}
	held := slices.Clone(before.Arena)
	for i := range 100 {
		if _, err := ix.UpsertItem(ctx, IndexItem{ID: fmt.Sprint("new", i), Vector: []float32{-1, float32(i), 0, 0}}); err != nil {
			t.Fatal(err)
		}
	}
	after, err := ix.snapshot(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	if after.len() != 1100 || unsafe.SliceData(after.Arena) != unsafe.SliceData(before.Arena) {
		t.Errorf("after 100 inserts: %d items, arena copied: %v; want 1100 items in the opened arena", after.len(), unsafe.SliceData(after.Arena) != unsafe.SliceData(before.Arena))
	}
	if !slices.Equal(before.Arena, held) || before.len() != 1000 {
		t.Error("the opened state changed under its readers")
	}
	if v := after.Vector(1099); !slices.Equal(v, []float32{-1, 99, 0, 0}) {
		t.Errorf("item 1099's vector is %v", v)
	}
}
