//go:build js && wasm

package browser_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	storageidb "github.com/foliovec/folio/adapters/storage-idb"
	"github.com/foliovec/folio/browser"
	"github.com/foliovec/folio/core"
)

// openIndex10k opens a 10,000 × 384 index written into IndexedDB.
func openIndex10k(b *testing.B, name string) *core.LocalIndex {
	ctx := context.Background()
	storage := storageidb.New(&storageidb.Options{Name: name})
	b.Cleanup(func() { storage.Destroy(ctx) })
	ix, err := browser.NewLocalIndex("bench", &browser.IndexOptions{Storage: storage})
	if err != nil {
		b.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Version: 1}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	items := make([]core.IndexItem, 10_000)
	for i := range items {
		v := make([]float32, 384)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		items[i] = core.IndexItem{ID: fmt.Sprint(i), Vector: v}
	}
	if _, err := ix.BatchInsertItems(ctx, items); err != nil {
		b.Fatal(err)
	}
	return ix
}

// BenchmarkQuery10kx384 is one top-10 query over 10,000 × 384 vectors in
// the page (js/wasm runs the portable kernel).
func BenchmarkQuery10kx384(b *testing.B) {
	ix := openIndex10k(b, "folio-bench-query")
	q := make([]float32, 384)
	for i := range q {
		q[i] = float32(i%7) - 3
	}
	for b.Loop() {
		if _, err := ix.QueryItems(b.Context(), q, "", 10, nil, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen10kx384 opens the index from IndexedDB (a page load).
func BenchmarkOpen10kx384(b *testing.B) {
	openIndex10k(b, "folio-bench-open")
	storage := storageidb.New(&storageidb.Options{Name: "folio-bench-open"})
	defer storage.Close()
	for b.Loop() {
		ix, err := browser.NewLocalIndex("bench", &browser.IndexOptions{Storage: storage})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ix.GetIndexStats(b.Context()); err != nil { // the first call loads the index
			b.Fatal(err)
		}
	}
}
