package core

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// Replacing an item of Vectra's file layout keeps it in its place in the
// file and in ListItems, as Vectra does, without copying the columns: the
// commit keeps the base's rows. Random upserts, replacements and deletes,
// across commits and past the rebuild of the columns, list the items in
// the order Vectra keeps them, in memory and from the file.
func TestReplacedItemsKeepTheirPlace(t *testing.T) {
	ix, st := newCreatedIndex(t, CreateIndexConfig{})
	rng := rand.New(rand.NewPCG(11, 12))
	var order []string // Vectra's order: a replaced item in place, a new one last
	vectors := map[string][]float32{}
	upsert := func(id string) {
		v := randomVector(rng, 8)
		if !slices.Contains(order, id) {
			order = append(order, id)
		}
		vectors[id] = v
		if _, err := ix.UpsertItem(ctxb, IndexItem{ID: id, Vector: v, Metadata: Metadata{"g": "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		upsert(fmt.Sprint("k", i))
	}
	arena := &ix.cur.Load().Arena[0]
	upsert("k7")
	if s := ix.cur.Load(); &s.Arena[0] != arena || len(s.moved) != 1 {
		t.Fatalf("a replacement copied the columns (%d moved)", len(s.moved))
	}
	rebuilt := false
	for round := range 700 {
		id := fmt.Sprint("k", rng.IntN(60))
		if rng.IntN(5) == 0 {
			if i := slices.Index(order, id); i >= 0 {
				order = slices.Delete(order, i, i+1)
				delete(vectors, id)
			}
			if err := ix.DeleteItem(ctxb, id); err != nil {
				t.Fatal(err)
			}
		} else {
			upsert(id)
		}
		if s := ix.cur.Load(); s.ndead == 0 && round > 0 {
			rebuilt = true
		}
		if round%50 != 49 {
			continue
		}
		for _, reader := range []*LocalIndex{ix, reopen(t, st)} {
			items, err := reader.ListItems(ctxb)
			if err != nil {
				t.Fatal(err)
			}
			if got := itemIDs(items); !slices.Equal(got, order) {
				t.Fatalf("round %d: ListItems %v\nwant Vectra's order %v", round, got, order)
			}
			for _, it := range items {
				if !slices.Equal(it.Vector, vectors[it.ID]) {
					t.Fatalf("round %d: %s holds another vector", round, it.ID)
				}
			}
			filtered, err := reader.ListItemsByMetadata(ctxb, Filter{"g": "x"})
			if err != nil || !slices.Equal(itemIDs(filtered), order) {
				t.Fatalf("round %d: ListItemsByMetadata %v, %v", round, itemIDs(filtered), err)
			}
		}
	}
	if !rebuilt {
		t.Fatal("the columns were never rebuilt: the test misses that path")
	}
}

// Equal scores rank in storage order on every query path, a replaced
// item at its place, even where more items tie than a scan keeps.
func TestMovedItemsWinTheirTies(t *testing.T) {
	for _, quantized := range []bool{false, true} {
		t.Run(fmt.Sprint("quantized=", quantized), func(t *testing.T) {
			st := newMemTestStorage()
			ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, QuantizedScan: quantized})
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.CreateIndex(ctxb, CreateIndexConfig{}); err != nil {
				t.Fatal(err)
			}
			v := gaussianUnitVectors(5, 1, 16)[0]
			var batch []IndexItem
			for i := range 300 {
				batch = append(batch, IndexItem{ID: fmt.Sprint("t", i), Vector: v, Metadata: Metadata{"g": "x"}})
			}
			if _, err := ix.BatchInsertItems(ctxb, batch); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "t1", Vector: v, Metadata: Metadata{"g": "x"}}); err != nil {
				t.Fatal(err)
			}
			if s := ix.cur.Load(); len(s.moved) != 1 {
				t.Fatalf("%d items moved, want 1", len(s.moved))
			}
			want := []string{"t0", "t1", "t2"}
			for _, f := range []Filter{nil, {"g": "x"}} {
				got, err := ix.QueryItems(ctxb, v, "", 3, f, false)
				if err != nil || !slices.Equal(resultIDs(got), want) {
					t.Fatalf("filter %v: %v, %v; want %v", f, resultIDs(got), err, want)
				}
			}
			batched, err := ix.QueryItemsBatch(ctxb, []ItemQuery{{Vector: v, TopK: 3}, {Vector: v, TopK: 3, Filter: Filter{"g": "x"}}})
			if err != nil {
				t.Fatal(err)
			}
			for i, rs := range batched {
				if !slices.Equal(resultIDs(rs), want) {
					t.Fatalf("batch query %d: %v; want %v", i, resultIDs(rs), want)
				}
			}
			zero, err := ix.QueryItems(ctxb, make([]float32, 16), "", 3, nil, false)
			if err != nil || !slices.Equal(resultIDs(zero), want) {
				t.Fatalf("zero query: %v, %v; want %v", resultIDs(zero), err, want)
			}
		})
	}
}

// An opened index maps its ids apart from the read (a query needs no map):
// the map finds every item, and the first of an id stored twice (a file
// written by another tool).
func TestIDMapIsBuiltApart(t *testing.T) {
	ctx := context.Background()
	ix, st := newCreatedIndex(t, CreateIndexConfig{})
	for _, id := range []string{"a", "b", "c"} {
		mustInsert(t, ix, id, []float32{1, float32(len(id))}, nil)
	}
	ix = reopen(t, st)
	if _, err := ix.QueryItems(ctx, []float32{1, 0}, "", 2, nil, false); err != nil {
		t.Fatal(err)
	}
	s := ix.cur.Load()
	for i, id := range []string{"a", "b", "c"} {
		if it, ok, err := ix.GetItem(ctx, id); err != nil || !ok || it.ID != id {
			t.Fatalf("GetItem(%q) = %v, %v, %v", id, it.ID, ok, err)
		}
		if slot, _ := s.slotMap().Lookup(id); slot != int32(i) {
			t.Fatalf("%q is in slot %d, want %d", id, slot, i)
		}
	}
	if s.dupIDs() {
		t.Fatal("a duplicate id seen in distinct ids")
	}
	dup := &snapshot{ids: []string{"x", "y", "x"}}
	dup.idMap = dup.lazyIDs(3, 0)
	if dup.idMap.build == nil {
		t.Fatal("a new snapshot's id map is built before its first use")
	}
	if slot, _ := dup.slotMap().Lookup("x"); slot != 0 || !dup.dupIDs() {
		t.Fatalf("an id stored twice maps to slot %d (want 0), duplicates seen %v", slot, dup.dupIDs())
	}
}
