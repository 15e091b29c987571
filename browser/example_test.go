//go:build js && wasm

package browser_test

import (
	"context"
	"fmt"

	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	storageidb "github.com/foliovec/folio/adapters/storage-idb"
	"github.com/foliovec/folio/browser"
	"github.com/foliovec/folio/core"
)

// A document index in the page's IndexedDB, embedded offline.
func ExampleNewLocalDocumentIndex() {
	ctx := context.Background()
	storage := storageidb.New(&storageidb.Options{Name: "folio-example-docs"}) // nil Storage: "vectra-db"
	defer storage.Destroy(ctx)                                                 // an example cleans up; a page keeps its index

	ix, err := browser.NewLocalDocumentIndex(browser.DocumentIndexConfig{
		FolderPath:   "notes",
		Embeddings:   embedhash.New(nil),
		IndexOptions: core.IndexOptions{Storage: storage},
	})
	if err != nil {
		panic(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Version: 1}); err != nil {
		panic(err)
	}
	if _, err := ix.UpsertDocument(ctx, "rivers.txt", "The Danube flows through ten countries.", "txt", nil, nil); err != nil {
		panic(err)
	}
	results, err := ix.QueryDocuments(ctx, "Which river crosses many countries?", nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(results[0].URI())
	// Output:
	// rivers.txt
}

// An item index in the page's IndexedDB.
func ExampleNewLocalIndex() {
	ctx := context.Background()
	storage := storageidb.New(&storageidb.Options{Name: "folio-example-items"})
	defer storage.Destroy(ctx)

	ix, err := browser.NewLocalIndex("vectors", &browser.IndexOptions{Storage: storage})
	if err != nil {
		panic(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Version: 1}); err != nil {
		panic(err)
	}
	for id, v := range map[string][]float32{"east": {1, 0}, "north": {0, 1}} {
		if _, err := ix.InsertItem(ctx, core.IndexItem{ID: id, Vector: v}); err != nil {
			panic(err)
		}
	}
	hits, err := ix.QueryItems(ctx, []float32{0.9, 0.1}, "", 1, nil, false)
	if err != nil {
		panic(err)
	}
	fmt.Println(hits[0].Item.ID)
	// Output:
	// east
}
