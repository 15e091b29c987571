package reference_test

import (
	"context"
	"fmt"

	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
)

// A LocalIndex over the in-memory storage and the reference codec: what a test of another
// adapter pairs it with.
func Example() {
	ctx := context.Background()
	ix, err := core.NewLocalIndex("idx", core.IndexOptions{Storage: core.NewMemoryStorage(), Codec: reference.Codec{}})
	if err != nil {
		panic(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Version: 1}); err != nil {
		panic(err)
	}
	if _, err := ix.InsertItem(ctx, core.IndexItem{ID: "a", Vector: []float32{1, 0}, Metadata: core.Metadata{"tag": "x"}}); err != nil {
		panic(err)
	}
	hits, err := ix.QueryItems(ctx, []float32{1, 0}, "", 1, core.Filter{"tag": "x"}, false)
	if err != nil {
		panic(err)
	}
	fmt.Println(hits[0].Item.ID, hits[0].Score)
	// Output: a 1
}
