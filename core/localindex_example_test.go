package core

import (
	"context"
	"fmt"
)

func ExampleNewLocalIndex() {
	ctx := context.Background()
	// Any FileStorage and IndexCodec will do; the root package folio
	// defaults them to the local file system and JSON. These are in-memory
	// test doubles.
	ix, err := NewLocalIndex("notes", IndexOptions{Storage: newMemTestStorage(), Codec: jsonTestCodec{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = ix.CreateIndex(ctx, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"lang"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = ix.BatchInsertItems(ctx, []IndexItem{
		{ID: "go", Vector: []float32{1, 0, 0}, Metadata: Metadata{"lang": "en", "text": "Go is fast"}},
		{ID: "rust", Vector: []float32{0.8, 0.6, 0}, Metadata: Metadata{"lang": "en", "text": "Rust is safe"}},
		{ID: "ocaml", Vector: []float32{0, 0, 1}, Metadata: Metadata{"lang": "fr", "text": "OCaml est sûr"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	results, err := ix.QueryItems(ctx, []float32{1, 0.1, 0}, "", 2, Filter{"lang": "en"}, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		// Metadata is the full metadata, read from the item's side-car.
		fmt.Printf("%s %.3f %s\n", r.Item.ID, r.Score, r.Item.Metadata["text"])
	}
	// Output:
	// go 0.995 Go is fast
	// rust 0.856 Rust is safe
}
