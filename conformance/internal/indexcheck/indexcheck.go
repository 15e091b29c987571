// Package indexcheck is the scenario the conformance suites run to drive an
// adapter through *core.LocalIndex: what a user does with it, end to end.
//
// # Concurrency
//
// Exercise uses its storage and codec from one goroutine at a time.
//
// # Errors
//
// Violations are reported with t.Error; a step whose failure makes the rest
// meaningless ends the case with t.Fatal.
package indexcheck

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/foliovec/folio/core"
)

// indexed are the keys kept in the index file; the others go to side-cars.
var indexed = []string{"category", "n"}

// item i of the scenario: vectors at distinct angles from the query, so
// scores never tie and their order survives any codec's rounding.
func item(i int) core.IndexItem {
	a := float64(i) * 0.11
	return core.IndexItem{
		ID:     fmt.Sprintf("item-%02d", i),
		Vector: []float32{float32(math.Cos(a)), float32(math.Sin(a)), 0.25, float32(i%3) * 0.1},
		Metadata: core.Metadata{
			"category": []string{"a", "b", "c"}[i%3],
			"n":        float64(i),
			"title":    fmt.Sprintf("Item %d — ünïcode", i),
			"flag":     i%2 == 0,
		},
	}
}

var (
	query  = []float32{1, 0, 0.25, 0}
	filter = core.Filter{"category": core.Filter{"$in": []any{"a", "b"}}, "n": core.Filter{"$gte": 3}}
)

// Exercise creates an index in folder over s with codec c, inserts items
// with indexed and side-car metadata, runs a filtered query, reopens the
// folder with a new LocalIndex over reopen() (the same storage, or a new
// value over its data), and checks the query, the items and a metadata
// listing come back the same; then it replaces and deletes items and checks
// again after another reopen.
func Exercise(t testing.TB, s core.FileStorage, reopen func() core.FileStorage, folder string, c core.IndexCodec) {
	t.Helper()
	ctx := t.Context()
	open := func(s core.FileStorage) *core.LocalIndex {
		t.Helper()
		ix, err := core.NewLocalIndex(folder, core.IndexOptions{Storage: s, Codec: c, StrictFilters: true})
		if err != nil {
			t.Fatalf("NewLocalIndex(%q): %v", folder, err)
		}
		return ix
	}
	ix := open(s)
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: indexed}}); err != nil {
		t.Fatalf("CreateIndex: %v", err)
	}
	items := make([]core.IndexItem, 12)
	for i := range items {
		items[i] = item(i)
	}
	if _, err := ix.BatchInsertItems(ctx, items); err != nil {
		t.Fatalf("BatchInsertItems: %v", err)
	}
	if name := "index" + c.Extension(); !exists(t, s, folder+"/"+name) {
		t.Errorf("the folder has no %s after CreateIndex and an insert", name)
	}
	want := snapshot(t, ix)
	if len(want.hits) == 0 || len(want.listed) == 0 {
		t.Fatalf("the filtered query found %d items and the listing %d, want some of each", len(want.hits), len(want.listed))
	}
	if got, w := want.items["item-05"].Metadata["title"], items[5].Metadata["title"]; got != w {
		t.Errorf("item-05's side-car title = %v, want %v", got, w)
	}

	ix = open(reopen())
	same(t, "after reopening", snapshot(t, ix), want)

	changed := item(4)
	changed.Metadata["title"] = "replaced"
	if _, err := ix.UpsertItem(ctx, changed); err != nil {
		t.Fatalf("UpsertItem: %v", err)
	}
	if err := ix.DeleteItem(ctx, "item-03"); err != nil {
		t.Fatalf("DeleteItem: %v", err)
	}
	want = snapshot(t, ix)
	ix = open(reopen())
	got := snapshot(t, ix)
	same(t, "after an upsert, a delete and another reopen", got, want)
	if _, ok := got.items["item-03"]; ok {
		t.Errorf("item-03 is back after its delete and a reopen")
	}
	if title := got.items["item-04"].Metadata["title"]; title != "replaced" {
		t.Errorf("item-04's title after its upsert and a reopen = %v, want \"replaced\"", title)
	}
}

// state is what the scenario compares across a reopen.
type state struct {
	hits   []core.QueryResult
	listed []string
	items  map[string]core.IndexItem
}

func snapshot(t testing.TB, ix *core.LocalIndex) state {
	t.Helper()
	ctx := t.Context()
	hits, err := ix.QueryItems(ctx, query, "", 5, filter, false)
	if err != nil {
		t.Fatalf("QueryItems: %v", err)
	}
	listed, err := ix.ListItemsByMetadata(ctx, core.Filter{"category": "c"})
	if err != nil {
		t.Fatalf("ListItemsByMetadata: %v", err)
	}
	// A query over everything returns full metadata, side-cars included
	// (GetItem and ListItems return the inline part, as Vectra does).
	all, err := ix.QueryItems(ctx, query, "", 1000, nil, false)
	if err != nil {
		t.Fatalf("QueryItems over every item: %v", err)
	}
	st := state{hits: hits, items: map[string]core.IndexItem{}}
	for _, it := range listed {
		st.listed = append(st.listed, it.ID)
	}
	slices.Sort(st.listed)
	for _, r := range all {
		st.items[r.Item.ID] = r.Item
	}
	return st
}

// same reports every difference between got and want; vectors and scores
// may differ by a relative 1e-6 (a codec need not keep float32 exactly).
func same(t testing.TB, when string, got, want state) {
	t.Helper()
	if len(got.hits) != len(want.hits) {
		t.Errorf("%s: the filtered query found %d items, want %d", when, len(got.hits), len(want.hits))
	}
	for i := range min(len(got.hits), len(want.hits)) {
		g, w := got.hits[i], want.hits[i]
		if g.Item.ID != w.Item.ID || !near(g.Score, w.Score) {
			t.Errorf("%s: hit %d = %s (%.9f), want %s (%.9f)", when, i, g.Item.ID, g.Score, w.Item.ID, w.Score)
		}
	}
	if !slices.Equal(got.listed, want.listed) {
		t.Errorf("%s: ListItemsByMetadata = %q, want %q", when, got.listed, want.listed)
	}
	if len(got.items) != len(want.items) {
		t.Errorf("%s: %d items, want %d", when, len(got.items), len(want.items))
	}
	for id, w := range want.items {
		g, ok := got.items[id]
		if !ok {
			t.Errorf("%s: item %s is missing", when, id)
			continue
		}
		if !reflect.DeepEqual(g.Metadata, w.Metadata) {
			t.Errorf("%s: item %s metadata = %v, want %v", when, id, g.Metadata, w.Metadata)
		}
		if len(g.Vector) != len(w.Vector) {
			t.Errorf("%s: item %s has %d dimensions, want %d", when, id, len(g.Vector), len(w.Vector))
			continue
		}
		for k := range g.Vector {
			if !near(float64(g.Vector[k]), float64(w.Vector[k])) {
				t.Errorf("%s: item %s vector[%d] = %v, want %v", when, id, k, g.Vector[k], w.Vector[k])
				break
			}
		}
	}
}

func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-6*math.Max(math.Abs(a), math.Abs(b))
}

func exists(t testing.TB, s core.FileStorage, p string) bool {
	t.Helper()
	ok, err := s.PathExists(t.Context(), p)
	if err != nil {
		t.Errorf("PathExists(%q): %v", p, err)
	}
	return ok
}
