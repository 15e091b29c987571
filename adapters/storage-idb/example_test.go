//go:build js && wasm

package storageidb_test

import (
	"context"
	"fmt"

	"github.com/foliovec/folio/adapters/storage-idb"
	"github.com/foliovec/folio/core"
)

// Files kept in the page's IndexedDB, in Vectra's database layout; give the
// storage to an index as its core.IndexOptions.Storage.
func ExampleNew() {
	ctx := context.Background()
	storage := storageidb.New(&storageidb.Options{Name: "folio-example"})
	defer storage.Destroy(ctx) // an example cleans up; a page keeps its data

	if err := storage.CreateFolder(ctx, "my-index"); err != nil {
		panic(err)
	}
	if err := storage.UpsertFile(ctx, "my-index/index.json", []byte(`{"version":1}`)); err != nil {
		panic(err)
	}
	files, err := storage.ListFiles(ctx, "", core.ListAll)
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		fmt.Println(f.Path, f.IsFolder)
	}
	text, err := storage.ReadFile(ctx, "my-index/index.json")
	if err != nil {
		panic(err)
	}
	fmt.Println(string(text))
	// Output:
	// my-index true
	// {"version":1}
}
