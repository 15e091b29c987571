package folio_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/core"
)

func ExampleNewLocalDocumentIndex() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "folio-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)

	// Local files, JSON and the o200k_base tokenizer by default; embed-hash
	// is an offline, lexical embeddings model.
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
		FolderPath: filepath.Join(tmp, "docs"),
		Embeddings: embedhash.New(embedhash.Options{}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
		fmt.Println(err)
		return
	}
	docs := map[string]string{
		"pets.md":   "# Pets\n\nCats sleep most of the day. Dogs need a walk every morning.",
		"plants.md": "# Plants\n\nWater the ferns twice a week and keep cacti dry.",
	}
	for _, uri := range []string{"pets.md", "plants.md"} {
		if _, err := ix.UpsertDocument(ctx, uri, docs[uri], "", core.Metadata{"topic": "home"}, nil); err != nil {
			fmt.Println(err)
			return
		}
	}
	results, err := ix.QueryDocuments(ctx, "when do dogs walk", &core.DocumentQueryOptions{MaxDocuments: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		sections, err := r.RenderSections(ctx, 200, 1, true)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %q\n", r.URI(), sections[0].Text)
	}
	// Output:
	// pets.md: "# Pets\n\nCats sleep most of the day. Dogs need a walk every morning."
}
