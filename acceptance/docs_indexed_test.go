package acceptance_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// keywordChunks counts the chunks of results that BM25 found.
func keywordChunks(results []*core.LocalDocumentResult) int {
	n := 0
	for _, r := range results {
		for _, c := range r.Chunks {
			if c.Item.Metadata["isBm25"] == true {
				n++
			}
		}
	}
	return n
}

// Hybrid search finds keyword chunks in a document index with indexed
// metadata: the chunk keys (documentId, startPos, endPos) stay inline,
// whatever MetadataConfig.Indexed says.
func TestDocsHybridSearchWithIndexedMetadata(t *testing.T) {
	ctx := context.Background()
	for _, f := range docsFolders {
		t.Run(f.name, func(t *testing.T) {
			ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
				FolderPath:   filepath.Join(t.TempDir(), "docs"),
				Embeddings:   embedhash.New(&embedhash.Options{Dimensions: 32}),
				IndexOptions: core.IndexOptions{Codec: f.codec},
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.CreateIndex(ctx, core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"lang"}}}); err != nil {
				t.Fatal(err)
			}
			docs := map[string]string{
				"a.md": "Zebras graze on the savanna in large herds.",
				"b.md": "Quantum computers use qubits for computation.",
				"c.md": "Sourdough bread needs a lively starter and patience.",
				"d.md": "Feed the sourdough starter flour and water every day.",
			}
			for uri, text := range docs {
				if _, err := ix.UpsertDocument(ctx, uri, text, "", core.Metadata{"lang": "en", "topic": "misc"}, nil); err != nil {
					t.Fatal(err)
				}
			}
			for _, reopen := range []bool{false, true} {
				q := ix
				if reopen {
					if q, err = folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
						FolderPath:   ix.FolderPath(),
						Embeddings:   ix.Embeddings(),
						IndexOptions: core.IndexOptions{Codec: f.codec},
					}); err != nil {
						t.Fatal(err)
					}
				}
				res, err := q.QueryDocuments(ctx, "sourdough starter", &core.DocumentQueryOptions{MaxChunks: 1, IsBm25: true, Filter: core.Filter{"lang": "en"}})
				if err != nil {
					t.Fatal(err)
				}
				if keywordChunks(res) == 0 {
					t.Errorf("reopened %v: hybrid query found no keyword chunk", reopen)
				}
				if len(res) != 2 {
					t.Errorf("reopened %v: %d documents, want c.md and d.md (one by vector, one by keyword)", reopen, len(res))
				}
			}
		})
	}
}

// vectraIndexedCopy rewrites a copy of a Vectra document fixture as Vectra
// writes a document index with MetadataConfig.Indexed ["lang"]: each chunk
// keeps only lang inline, and its full metadata (the chunk keys included)
// goes to a side-car "<n><ext>".
func vectraIndexedCopy(t *testing.T, folder string, codec core.IndexCodec) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), folder)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(testkit.FixtureDir(t), folder))); err != nil {
		t.Fatal(err)
	}
	indexFile := filepath.Join(dst, "index"+codec.Extension())
	raw, err := os.ReadFile(indexFile)
	if err != nil {
		t.Fatal(err)
	}
	data, err := codec.DeserializeIndex(raw)
	if err != nil {
		t.Fatal(err)
	}
	data.MetadataConfig.Indexed = []string{"lang"}
	for i := range data.Items {
		it := &data.Items[i]
		side, err := codec.SerializeMetadata(it.Metadata)
		if err != nil {
			t.Fatal(err)
		}
		it.MetadataFile = "00000009-0000-4000-8000-" + filepath.Base(it.ID)[24:] + codec.Extension()
		if err := os.WriteFile(filepath.Join(dst, it.MetadataFile), side, 0o644); err != nil {
			t.Fatal(err)
		}
		inline := core.Metadata{}
		if v, ok := it.Metadata["lang"]; ok {
			inline["lang"] = v
		}
		it.Metadata = inline
	}
	if raw, err = codec.SerializeIndex(data); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(indexFile, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// A Vectra-made document index with indexed metadata keeps its chunk keys
// in side-cars only: Folio reads them from there, so hybrid search finds
// keyword chunks, documents list, and replacing a document removes its old
// chunks.
func TestDocsVectraIndexedFolderChunkKeysFromSidecars(t *testing.T) {
	ctx := context.Background()
	for _, f := range docsFolders {
		t.Run(f.name, func(t *testing.T) {
			dir := vectraIndexedCopy(t, f.name, f.codec)
			ix, _ := docsOpen(t, dir, f.codec)
			docs, err := ix.ListDocuments(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != 5 {
				t.Fatalf("ListDocuments: %d documents, want 5", len(docs))
			}
			res, err := ix.QueryDocuments(ctx, "cosine similarity", &core.DocumentQueryOptions{MaxChunks: 2, IsBm25: true})
			if err != nil {
				t.Fatal(err)
			}
			if keywordChunks(res) == 0 {
				t.Error("hybrid query on a Vectra-made folder with indexed metadata found no keyword chunk")
			}
			before, err := ix.GetCatalogStats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			old := docs[0]
			oldChunks := len(old.Chunks)
			if _, err := ix.UpsertDocument(ctx, old.URI(), "A replacement text.", "", nil, nil); err != nil {
				t.Fatal(err)
			}
			after, err := ix.GetCatalogStats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if want := before.Chunks - oldChunks + 1; after.Chunks != want {
				t.Errorf("after replacing %s (%d chunks) by one chunk: %d chunks, want %d", old.URI(), oldChunks, after.Chunks, want)
			}
			items, err := ix.ListItems(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				if it.Metadata["documentId"] == old.ID() {
					t.Fatalf("chunk %s of the replaced document is still in the index", it.ID)
				}
			}
		})
	}
}
