package core

import (
	"context"
	"fmt"
)

func ExampleNewLocalDocumentIndex() {
	ctx := context.Background()
	// Any FileStorage, IndexCodec, Tokenizer and EmbeddingsModel will do;
	// the root package folio defaults the first three to the local file
	// system, JSON and o200k_base. These are in-memory test doubles: one
	// token per character, words hashed into 32 dimensions.
	ix, err := NewLocalDocumentIndex(LocalDocumentIndexConfig{
		FolderPath:     "docs",
		Embeddings:     &docTestEmbeddings{maxTokens: 500},
		Tokenizer:      renderCharTokenizer{},
		ChunkingConfig: &TextSplitterConfig{ChunkSize: 40, KeepSeparators: true},
		Storage:        newMemTestStorage(),
		Codec:          jsonTestCodec{},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := ix.CreateIndex(ctx, CreateIndexConfig{}); err != nil {
		fmt.Println(err)
		return
	}
	texts := map[string]string{
		"pets.md":   "# Pets\n\nCats sleep all day.\n\nDogs walk every morning.\n",
		"plants.md": "# Plants\n\nWater ferns twice a week.\n",
	}
	for _, uri := range []string{"pets.md", "plants.md"} {
		if _, err := ix.UpsertDocument(ctx, uri, texts[uri], "", Metadata{"topic": "home"}, nil); err != nil {
			fmt.Println(err)
			return
		}
	}
	results, err := ix.QueryDocuments(ctx, "dogs walk", &DocumentQueryOptions{MaxDocuments: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		sections, err := r.RenderSections(ctx, 30, 1, true)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %q\n", r.URI(), sections[0].Text)
	}
	// Output:
	// pets.md: "Dogs walk every morning.\n"
}
