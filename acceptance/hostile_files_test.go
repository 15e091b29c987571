package acceptance_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/core"
)

// mustExist fails unless every name is a file in dir.
func mustExist(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s is gone: %v", n, err)
		}
	}
}

// Folio never deletes its own index or catalog file, whatever a chunk key,
// a catalog id or a metadataFile says: through the public API alone, and
// from hostile folders, with both codecs.
func TestFolioNeverDeletesItsOwnFiles(t *testing.T) {
	ctx := context.Background()
	for _, f := range docsFolders {
		ext := f.codec.Extension()
		openDocs := func(t *testing.T, dir string) *core.LocalDocumentIndex {
			ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: dir, Embeddings: embedhash.New(&embedhash.Options{Dimensions: 32}), IndexOptions: core.IndexOptions{Codec: f.codec}})
			if err != nil {
				t.Fatal(err)
			}
			return ix
		}
		t.Run(f.name+"/a chunk key naming the index, then an upsert", func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "docs")
			ix := openDocs(t, dir)
			if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"index", "catalog"} {
				if _, err := ix.InsertItem(ctx, core.IndexItem{Vector: make32(1), Metadata: core.Metadata{"documentId": name, "startPos": 0, "endPos": 0}}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := ix.UpsertDocument(ctx, "a.md", "some text", "", nil, nil); err != nil {
				t.Fatal(err)
			}
			mustExist(t, dir, "index"+ext, "catalog"+ext)
			if st, err := openDocs(t, dir).GetCatalogStats(ctx); err != nil || st.Documents != 1 {
				t.Fatalf("reopened: %+v, %v", st, err)
			}
		})
		t.Run(f.name+"/catalog ids naming the index and the catalog, then DeleteDocument", func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "docs")
			ix := openDocs(t, dir)
			if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
				t.Fatal(err)
			}
			cat := core.DocumentCatalog{Version: 1, Count: 2,
				URIToID:   map[string]string{"x": "index", "y": "catalog"},
				IDToURI:   map[string]string{"index": "x", "catalog": "y"},
				URIToHash: map[string]string{}}
			raw, err := f.codec.SerializeCatalog(cat)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "catalog"+ext), raw, 0o644); err != nil {
				t.Fatal(err)
			}
			hostile := openDocs(t, dir)
			for _, uri := range []string{"x", "y"} {
				if err := hostile.DeleteDocument(ctx, uri); err != nil {
					t.Fatalf("delete %s: %v", uri, err)
				}
			}
			mustExist(t, dir, "index"+ext, "catalog"+ext)
		})
		t.Run(f.name+"/a metadataFile naming the catalog, then DeleteItem", func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "docs")
			ix := openDocs(t, dir)
			if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
				t.Fatal(err)
			}
			plain, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: f.codec})
			if err != nil {
				t.Fatal(err)
			}
			data := core.IndexData{Version: 1, Items: []core.IndexItem{
				{ID: "a", Vector: make32(1), Norm: 1, MetadataFile: "catalog" + ext},
				{ID: "b", Vector: make32(2), Norm: 1, MetadataFile: "index" + ext},
			}}
			raw, err := f.codec.SerializeIndex(data)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "index"+ext), raw, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := plain.DeleteItems(ctx, []string{"a", "b"}); err != nil {
				t.Fatal(err)
			}
			mustExist(t, dir, "index"+ext, "catalog"+ext)
		})
	}
}

func make32(x float32) []float32 {
	v := make([]float32, 32)
	v[0] = x
	return v
}
