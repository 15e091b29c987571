package folio_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/foliovec/folio"
	"github.com/foliovec/folio/core"
)

func ExampleNewLocalIndex() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "folio-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)

	// nil options: index.json on the local file system.
	ix, err := folio.NewLocalIndex(filepath.Join(tmp, "notes"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range []core.IndexItem{
		{ID: "a", Vector: []float32{1, 0}, Metadata: core.Metadata{"kind": "fruit"}},
		{ID: "b", Vector: []float32{0.6, 0.8}, Metadata: core.Metadata{"kind": "fruit"}},
		{ID: "c", Vector: []float32{0, 1}, Metadata: core.Metadata{"kind": "vegetable"}},
	} {
		if _, err := ix.InsertItem(ctx, it); err != nil { // durable when it returns
			fmt.Println(err)
			return
		}
	}
	results, err := ix.QueryItems(ctx, []float32{0, 1}, "", 2, core.Filter{"kind": "fruit"}, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		fmt.Printf("%s %.1f\n", r.Item.ID, r.Score)
	}
	_, err = os.Stat(filepath.Join(tmp, "notes", "index.json"))
	fmt.Println("index.json written:", err == nil)
	// Output:
	// b 0.8
	// a 0.0
	// index.json written: true
}
