//go:build unix

package acceptance_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/foliovec/folio"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

// An index file or side-car that is a FIFO fails a query at once instead of
// hanging it past its deadline, with the default storage and the rooted
// one.
func TestHostileFIFOsFailQueriesAtOnce(t *testing.T) {
	ctx := context.Background()
	for _, rooted := range []bool{false, true} {
		parent := t.TempDir()
		dir := filepath.Join(parent, "idx")
		opts := &folio.IndexOptions{}
		folder := dir
		if rooted {
			st, err := storagefs.New(&storagefs.Options{Root: parent})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			opts.Storage, folder = st, "idx"
		}
		ix, err := folio.NewLocalIndex(folder, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.CreateIndex(ctx, core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}}); err != nil {
			t.Fatal(err)
		}
		it, err := ix.InsertItem(ctx, core.IndexItem{Vector: []float32{1, 0}, Metadata: core.Metadata{"k": 1, "other": "x"}})
		if err != nil {
			t.Fatal(err)
		}
		fifo := func(name string) {
			p := filepath.Join(dir, name)
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
		}
		check := func(what string, call func(context.Context) error) {
			t.Helper()
			dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			start := time.Now()
			err := call(dctx)
			if !errors.Is(err, storagefs.ErrNotRegular) {
				t.Errorf("rooted %v: %s: %v, want storagefs.ErrNotRegular", rooted, what, err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("rooted %v: %s took %v", rooted, what, d)
			}
		}
		fifo(it.MetadataFile)
		check("query with a FIFO side-car", func(ctx context.Context) error {
			_, err := ix.QueryItems(ctx, []float32{1, 0}, "", 1, nil, false)
			return err
		})
		fifo("index.json")
		fresh, err := folio.NewLocalIndex(folder, opts)
		if err != nil {
			t.Fatal(err)
		}
		check("stats of a FIFO index file", func(ctx context.Context) error {
			_, err := fresh.GetIndexStats(ctx)
			return err
		})
	}
}
