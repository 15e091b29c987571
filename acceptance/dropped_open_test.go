package acceptance_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/core"
)

// Files a process dropped and left listed when it exited are deleted when
// the folder is next opened, once their time is up, on the local file
// system (which can lock the folder).
func TestDroppedFilesOfAnExitedProcessGoAtOpen(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "docs")
	opts := folio.IndexOptions{RetainDropped: 50 * time.Millisecond}
	writer, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: dir, Embeddings: embedhash.New(nil), IndexOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	if err := writer.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	old, err := writer.UpsertDocument(ctx, "a.md", "first version", "", core.Metadata{"v": 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writer.UpsertDocument(ctx, "a.md", "second version", "", core.Metadata{"v": 2}, nil); err != nil {
		t.Fatal(err)
	}
	oldText := filepath.Join(dir, old.ID()+".txt")
	if _, err := os.Stat(oldText); err != nil {
		t.Fatalf("the replaced version's text is gone at once: %v", err)
	}
	time.Sleep(100 * time.Millisecond) // the writer "exits" with its list left
	reader, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: dir, IndexOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	st, err := reader.GetCatalogStats(ctx)
	if err != nil || st.Documents != 1 {
		t.Fatalf("stats %+v, %v", st, err)
	}
	for _, f := range []string{oldText, filepath.Join(dir, old.ID()+".json"), filepath.Join(dir, ".folio-dropped.json")} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the open (%v)", filepath.Base(f), err)
		}
	}
	docs, err := reader.ListDocuments(ctx)
	if err != nil || len(docs) != 1 {
		t.Fatalf("documents %v, %v", docs, err)
	}
	if text, err := docs[0].LoadText(ctx); err != nil || text != "second version" {
		t.Fatalf("the current version reads %q, %v", text, err)
	}
}
