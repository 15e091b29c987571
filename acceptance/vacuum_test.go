package acceptance_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

func writeFileAged(t *testing.T, p string, age time.Duration) {
	t.Helper()
	if err := os.WriteFile(p, []byte(`{"x":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if age > 0 {
		old := time.Now().Add(-age)
		os.Chtimes(p, old, old)
	}
}

// Vacuum removes orphan side-cars, orphan document files and stale
// temporary files, and nothing an item or a document refers to, nor files
// not named as Folio names its own; opening an index removes stale
// temporary files.
func TestVacuumRemovesWhatNothingRefersTo(t *testing.T) {
	ctx := context.Background()
	for _, f := range docsFolders {
		t.Run(f.name, func(t *testing.T) {
			ext := f.codec.Extension()
			dir := filepath.Join(t.TempDir(), "docs")
			ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: dir, Embeddings: embedhash.New(&embedhash.Options{Dimensions: 32}), IndexOptions: core.IndexOptions{Codec: f.codec}})
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.CreateIndex(ctx, core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"lang"}}}); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.UpsertDocuments(ctx, []core.DocumentInput{
				{URI: "a.md", Text: "alpha text", Metadata: core.Metadata{"lang": "en", "topic": "a"}},
				{URI: "b.md", Text: "beta text"},
			}, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.InsertItem(ctx, core.IndexItem{ID: "plain", Vector: make32(1), Metadata: core.Metadata{"lang": "en", "other": 1}}); err != nil {
				t.Fatal(err)
			}
			before := docsFileNames(t, dir)
			orphans := []string{
				"00000000-0000-4000-8000-0000000000a1" + ext,
				"00000000-0000-4000-8000-0000000000a2.txt",
			}
			for _, o := range orphans {
				writeFileAged(t, filepath.Join(dir, o), 0)
			}
			foreign := []string{"notes.txt", "index-backup" + ext, "00000000-0000-4000-8000-0000000000a3.bak"}
			for _, o := range foreign {
				writeFileAged(t, filepath.Join(dir, o), 0)
			}
			writeFileAged(t, filepath.Join(dir, storagefs.TempPrefix+"stale"), time.Hour)
			// A write in progress: fresh, and held by its writer.
			writeFileAged(t, filepath.Join(dir, storagefs.TempPrefix+"fresh"), 0)
			holdAsAWriter(t, filepath.Join(dir, storagefs.TempPrefix+"fresh"))
			// A killed writer's: fresh, held by nobody.
			writeFileAged(t, filepath.Join(dir, storagefs.TempPrefix+"killed"), 0)

			rep, err := ix.Vacuum(ctx)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(rep.Documents)
			wantTemps := 2
			if runtime.GOOS == "windows" {
				wantTemps = 1 // the killed writer's file is too fresh to go
			}
			if !slices.Equal(rep.Documents, orphans) || rep.TempFiles != wantTemps {
				t.Errorf("report %+v, want documents %v and %d temp files", rep, orphans, wantTemps)
			}
			after := docsFileNames(t, dir)
			want := append(slices.Clone(before), foreign...)
			want = append(want, storagefs.TempPrefix+"fresh")
			if runtime.GOOS == "windows" {
				want = append(want, storagefs.TempPrefix+"killed")
			}
			slices.Sort(want)
			if !slices.Equal(after, want) {
				t.Errorf("files after vacuum:\n%v\nwant\n%v", after, want)
			}
			res, err := ix.QueryDocuments(ctx, "alpha", nil)
			if err != nil || len(res) == 0 {
				t.Fatalf("query after vacuum: %d, %v", len(res), err)
			}

			// Opening the index removes stale temporary files.
			writeFileAged(t, filepath.Join(dir, storagefs.TempPrefix+"stale2"), time.Hour)
			fresh, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: f.codec})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fresh.GetIndexStats(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(dir, storagefs.TempPrefix+"stale2")); err == nil {
				t.Error("opening the index left a stale temporary file")
			}
		})
	}
}

// Vacuum runs safely while the index is in use: concurrent queries and
// writes never fail, and no file an item refers to is removed.
func TestVacuumWhileInUse(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "idx")
	ix, err := folio.NewLocalIndex(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 2 {
		wg.Go(func() {
			for i := range 40 {
				if _, err := ix.UpsertItem(ctx, core.IndexItem{ID: fmt.Sprint("w", w, "-", i%10), Vector: make32(float32(i + 1)), Metadata: core.Metadata{"k": i, "other": i}}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 40 {
			if _, err := ix.QueryItems(ctx, make32(1), "", 5, nil, false); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Go(func() {
		for range 10 {
			if _, err := ix.Vacuum(ctx); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	items, err := ix.ListItems(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if _, err := os.Stat(filepath.Join(dir, it.MetadataFile)); err != nil {
			t.Errorf("item %s: side-car %s gone", it.ID, it.MetadataFile)
		}
	}
	if res, err := ix.QueryItems(ctx, make32(1), "", 100, nil, false); err != nil || len(res) != 20 {
		t.Errorf("final query: %d results, %v", len(res), err)
	}
}
