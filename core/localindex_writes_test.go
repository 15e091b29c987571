package core

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestLocalIndexWrites(t *testing.T) {
	t.Run("an insert without a vector is ErrInvalidArgument", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.InsertItem(ctxb, IndexItem{ID: "1"}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("InsertItem = %v; want ErrInvalidArgument", err)
		}
	})
	t.Run("UpsertItem of a new id inserts it", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{1, 2, 3}}); err != nil {
			t.Fatal(err)
		}
		if got := itemIDs(mustList(t, ix)); !slices.Equal(got, []string{"1"}) {
			t.Fatalf("ids = %v", got)
		}
	})
	t.Run("UpsertItem of an existing id replaces vector and metadata in place", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{1, 2, 3}, Metadata{"a": "old"})
		mustInsert(t, ix, "2", []float32{1, 1, 1}, nil)
		if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{4, 5, 6}, Metadata: Metadata{"a": "new"}}); err != nil {
			t.Fatal(err)
		}
		it, ok, err := ix.GetItem(ctxb, "1")
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		if !slices.Equal(it.Vector, []float32{4, 5, 6}) || it.Metadata["a"] != "new" {
			t.Fatalf("item = %+v", it)
		}
		if got := itemIDs(mustList(t, ix)); !slices.Equal(got, []string{"1", "2"}) {
			t.Fatalf("order after upsert = %v; want [1 2]", got)
		}
	})
	t.Run("an insert without an id gets a uuid v4 and empty inline metadata", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"a"}}})
		it := mustInsert(t, ix, "", []float32{1, 2, 3}, nil)
		if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(it.ID) {
			t.Fatalf("id %q is not a uuid v4", it.ID)
		}
		if it.Metadata == nil || len(it.Metadata) != 0 || it.MetadataFile != "" {
			t.Fatalf("metadata = %#v, file = %q; want {} and none", it.Metadata, it.MetadataFile)
		}
	})
	t.Run("CancelUpdate discards items inserted in the batch", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		mustInsert(t, ix, "1", []float32{1}, nil)
		ix.CancelUpdate()
		if n := len(mustList(t, ix)); n != 0 {
			t.Fatalf("items = %d; want 0", n)
		}
		ix.CancelUpdate() // no batch open: a no-op
	})
	t.Run("upserting [6 8] over [3 4] recomputes the norm to 10", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{3, 4}, nil)
		it, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{6, 8}})
		if err != nil {
			t.Fatal(err)
		}
		got, _, _ := ix.GetItem(ctxb, "1")
		if it.Norm != 10 || got.Norm != 10 {
			t.Fatalf("norm = %v / %v; want 10", it.Norm, got.Norm)
		}
	})
	t.Run("an upsert does not change an item returned before it", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{3, 4}, Metadata{"v": 1})
		before, _, _ := ix.GetItem(ctxb, "1")
		if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{6, 8}, Metadata: Metadata{"v": 2}}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(before.Vector, []float32{3, 4}) || before.Metadata["v"] != float64(1) || before.Norm != 5 {
			t.Fatalf("earlier item changed: %+v", before)
		}
	})
	t.Run("EndUpdate without a batch is ErrNoUpdate", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		if err := ix.EndUpdate(ctxb); !errors.Is(err, ErrNoUpdate) {
			t.Fatalf("EndUpdate = %v; want ErrNoUpdate", err)
		}
	})
	t.Run("a failed EndUpdate write returns the error and keeps the batch open", func(t *testing.T) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{})
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		mustInsert(t, ix, "1", []float32{1}, nil)
		fsErr := errors.New("fs error")
		st.failWrite = func(string) error { return fsErr }
		if err := ix.EndUpdate(ctxb); !errors.Is(err, fsErr) {
			t.Fatalf("EndUpdate = %v; want the fs error", err)
		}
		st.failWrite = nil
		if n := len(mustList(t, ix)); n != 0 {
			t.Fatalf("readers see %d items after a failed commit; want 0", n)
		}
		if err := ix.EndUpdate(ctxb); err != nil {
			t.Fatalf("retried EndUpdate = %v", err)
		}
		if got := itemIDs(mustList(t, reopen(t, st))); !slices.Equal(got, []string{"1"}) {
			t.Fatalf("ids after retry = %v", got)
		}
	})
	t.Run("BatchInsertItems inserts all and returns them in order", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		got, err := ix.BatchInsertItems(ctxb, []IndexItem{{ID: "1", Vector: []float32{1, 2}}, {ID: "2", Vector: []float32{2, 3}}, {Vector: []float32{3, 4}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0].ID != "1" || got[1].ID != "2" || got[2].ID == "" {
			t.Fatalf("returned = %v", itemIDs(got))
		}
		if ids := itemIDs(mustList(t, ix)); !slices.Equal(ids, itemIDs(got)) {
			t.Fatalf("stored = %v", ids)
		}
	})
	t.Run("BatchInsertItems with an existing id is ErrItemExists and stores nothing", func(t *testing.T) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"a"}}})
		mustInsert(t, ix, "2", []float32{1, 1}, nil)
		_, err := ix.BatchInsertItems(ctxb, []IndexItem{
			{ID: "1", Vector: []float32{1, 2}, Metadata: Metadata{"b": "side-car"}},
			{ID: "2", Vector: []float32{2, 3}},
		})
		if !errors.Is(err, ErrItemExists) {
			t.Fatalf("BatchInsertItems = %v; want ErrItemExists", err)
		}
		if ids := itemIDs(mustList(t, ix)); !slices.Equal(ids, []string{"2"}) {
			t.Fatalf("stored = %v; want [2]", ids)
		}
		if files := st.fileNames(idxTestFolder); !slices.Equal(files, []string{"index.json"}) {
			t.Fatalf("files = %v; want only index.json (the failed batch's side-car removed)", files)
		}
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatalf("BeginUpdate after failed batch = %v", err)
		}
	})
	t.Run("BatchInsertItems with an id twice in the batch is ErrItemExists", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		_, err := ix.BatchInsertItems(ctxb, []IndexItem{{ID: "1", Vector: []float32{1}}, {ID: "1", Vector: []float32{2}}})
		if !errors.Is(err, ErrItemExists) {
			t.Fatalf("BatchInsertItems = %v; want ErrItemExists", err)
		}
	})
	t.Run("BatchInsertItems while a batch is open is ErrUpdateInProgress", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.BatchInsertItems(ctxb, []IndexItem{{ID: "1", Vector: []float32{1}}}); !errors.Is(err, ErrUpdateInProgress) {
			t.Fatalf("BatchInsertItems = %v; want ErrUpdateInProgress", err)
		}
	})
	t.Run("an upsert inside a batch is invisible until EndUpdate, then persisted with metadata", func(t *testing.T) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{})
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{1, 2}, Metadata: Metadata{"k": "v"}}); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := ix.GetItem(ctxb, "1"); ok {
			t.Fatal("uncommitted item visible")
		}
		if err := ix.EndUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		it, ok, err := reopen(t, st).GetItem(ctxb, "1")
		if err != nil || !ok || it.Metadata["k"] != "v" {
			t.Fatalf("reloaded item = %+v, %v, %v", it, ok, err)
		}
	})
}

func TestLocalIndexDeletes(t *testing.T) {
	setup := func(t *testing.T, ids ...string) (*LocalIndex, *memTestStorage) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{})
		for _, id := range ids {
			mustInsert(t, ix, id, []float32{}, nil)
		}
		return ix, st
	}
	t.Run("DeleteItem of an unknown id is not an error and writes nothing", func(t *testing.T) {
		ix, st := setup(t, "1", "2", "3")
		writes := st.writeCount(idxTestFolder + "/index.json")
		if err := ix.DeleteItem(ctxb, "nope"); err != nil {
			t.Fatal(err)
		}
		if n := len(mustList(t, ix)); n != 3 {
			t.Fatalf("items = %d; want 3", n)
		}
		if st.writeCount(idxTestFolder+"/index.json") != writes {
			t.Fatal("a no-op delete rewrote the index file")
		}
	})
	t.Run("deleting the last item leaves an existing empty index", func(t *testing.T) {
		ix, st := setup(t, "1")
		if err := ix.DeleteItem(ctxb, "1"); err != nil {
			t.Fatal(err)
		}
		if ok, _ := ix.IsIndexCreated(ctxb); !ok {
			t.Fatal("index gone")
		}
		if n := len(mustList(t, reopen(t, st))); n != 0 {
			t.Fatalf("items = %d", n)
		}
	})
	t.Run("deletes at any position inside a batch leave the others exactly as stored", func(t *testing.T) {
		ix, st := setup(t, "1", "2", "3", "4", "5")
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"1", "3", "5"} {
			if err := ix.DeleteItem(ctxb, id); err != nil {
				t.Fatal(err)
			}
		}
		if err := ix.EndUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		want := []IndexItem{
			{ID: "2", Vector: []float32{}, Metadata: Metadata{}, Norm: 0},
			{ID: "4", Vector: []float32{}, Metadata: Metadata{}, Norm: 0},
		}
		for _, got := range [][]IndexItem{mustList(t, ix), mustList(t, reopen(t, st))} {
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("items = %#v; want %#v", got, want)
			}
		}
	})
	t.Run("DeleteItem of a missing id inside a batch is a no-op", func(t *testing.T) {
		ix, _ := setup(t, "1", "2")
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		if err := ix.DeleteItem(ctxb, "3"); err != nil {
			t.Fatal(err)
		}
		if err := ix.EndUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		if got := itemIDs(mustList(t, ix)); !slices.Equal(got, []string{"1", "2"}) {
			t.Fatalf("ids = %v", got)
		}
	})
	t.Run("DeleteItems removes several ids in one call", func(t *testing.T) {
		ix, st := setup(t, "1", "2", "3", "4")
		if err := ix.DeleteItems(ctxb, []string{"1", "3"}); err != nil {
			t.Fatal(err)
		}
		if got := itemIDs(mustList(t, reopen(t, st))); !slices.Equal(got, []string{"2", "4"}) {
			t.Fatalf("ids = %v", got)
		}
	})
	t.Run("DeleteItems inside a batch is invisible until EndUpdate", func(t *testing.T) {
		ix, _ := setup(t, "1", "2", "3")
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		if err := ix.DeleteItems(ctxb, []string{"1", "2"}); err != nil {
			t.Fatal(err)
		}
		if n := len(mustList(t, ix)); n != 3 {
			t.Fatalf("items before commit = %d; want 3", n)
		}
		if err := ix.EndUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		if got := itemIDs(mustList(t, ix)); !slices.Equal(got, []string{"3"}) {
			t.Fatalf("ids = %v", got)
		}
	})
	t.Run("DeleteItems accepts an id repeated in the list", func(t *testing.T) {
		ix, _ := setup(t, "1", "2")
		if err := ix.DeleteItems(ctxb, []string{"1", "1"}); err != nil {
			t.Fatal(err)
		}
		if got := itemIDs(mustList(t, ix)); !slices.Equal(got, []string{"2"}) {
			t.Fatalf("ids = %v", got)
		}
	})
	t.Run("DeleteItems ignores unknown ids and removes known ones", func(t *testing.T) {
		ix, _ := setup(t, "1", "2")
		if err := ix.DeleteItems(ctxb, []string{"x", "2", "y"}); err != nil {
			t.Fatal(err)
		}
		if got := itemIDs(mustList(t, ix)); !slices.Equal(got, []string{"1"}) {
			t.Fatalf("ids = %v", got)
		}
	})
	t.Run("DeleteItems with no ids changes and writes nothing", func(t *testing.T) {
		ix, st := setup(t, "1")
		writes := st.writeCount(idxTestFolder + "/index.json")
		if err := ix.DeleteItems(ctxb, nil); err != nil {
			t.Fatal(err)
		}
		if n := len(mustList(t, ix)); n != 1 || st.writeCount(idxTestFolder+"/index.json") != writes {
			t.Fatal("empty DeleteItems changed something")
		}
	})
	t.Run("CancelUpdate after DeleteItems leaves the committed item identical", func(t *testing.T) {
		ix, _ := setup(t)
		mustInsert(t, ix, "1", []float32{1, 2}, Metadata{"a": "b"})
		before, _, _ := ix.GetItem(ctxb, "1")
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		if err := ix.DeleteItems(ctxb, []string{"1"}); err != nil {
			t.Fatal(err)
		}
		ix.CancelUpdate()
		after, ok, _ := ix.GetItem(ctxb, "1")
		if !ok || !reflect.DeepEqual(before, after) {
			t.Fatalf("item after cancel = %+v; want %+v", after, before)
		}
	})
}

// After an EndUpdate that failed (a full disk), the batch stays open as in
// Vectra, but no write joins it any more: each fails with
// ErrUpdateInProgress naming the failure, where it returned nil for a
// change that might never be committed (11 acknowledged items lost after
// 6 kills). EndUpdate again commits the batch as it was; CancelUpdate
// drops it; writes then work as before, on both layouts.
func TestWritesAfterAFailedEndUpdateAreRefused(t *testing.T) {
	ctx := context.Background()
	for _, layout := range []Layout{LayoutFile, LayoutSegmented} {
		for _, then := range []string{"EndUpdate", "CancelUpdate"} {
			t.Run(string(layout)+"/"+then, func(t *testing.T) {
				ix, st := newCreatedIndex(t, CreateIndexConfig{Layout: layout})
				if err := ix.BeginUpdate(ctx); err != nil {
					t.Fatal(err)
				}
				mustInsert(t, ix, "in-batch", []float32{1, 0}, nil)
				full := errors.New("no space left on device")
				st.failWrite = func(string) error { return full }
				if err := ix.EndUpdate(ctx); !errors.Is(err, full) {
					t.Fatalf("EndUpdate: %v, want %v", err, full)
				}
				st.failWrite = nil
				refused := func(what string, err error) {
					t.Helper()
					if !errors.Is(err, ErrUpdateInProgress) || !strings.Contains(err.Error(), full.Error()) || !strings.Contains(err.Error(), "EndUpdate") {
						t.Errorf("%s after the failed EndUpdate: %v, want ErrUpdateInProgress naming the failure", what, err)
					}
				}
				_, err := ix.UpsertItem(ctx, IndexItem{ID: "late", Vector: []float32{0, 1}})
				refused("UpsertItem", err)
				_, err = ix.InsertItem(ctx, IndexItem{ID: "late2", Vector: []float32{0, 1}})
				refused("InsertItem", err)
				_, err = ix.BatchInsertItems(ctx, []IndexItem{{ID: "late3", Vector: []float32{0, 1}}})
				refused("BatchInsertItems", err)
				refused("DeleteItem", ix.DeleteItem(ctx, "in-batch"))
				refused("DeleteItems", ix.DeleteItems(ctx, []string{"in-batch"}))
				if err := ix.BeginUpdate(ctx); !errors.Is(err, ErrUpdateInProgress) {
					t.Errorf("BeginUpdate: %v, want ErrUpdateInProgress", err)
				}
				want := []string{}
				if then == "EndUpdate" {
					if err := ix.EndUpdate(ctx); err != nil {
						t.Fatalf("EndUpdate again: %v", err)
					}
					want = []string{"in-batch"}
				} else {
					ix.CancelUpdate()
				}
				if got := itemIDs(mustList(t, reopen(t, st))); !slices.Equal(got, want) {
					t.Fatalf("stored %v, want %v", got, want)
				}
				mustInsert(t, ix, "after", []float32{1, 1}, nil)
				if got := itemIDs(mustList(t, reopen(t, st))); !slices.Contains(got, "after") {
					t.Fatalf("a write after %s: stored %v", then, got)
				}
			})
		}
	}
}
