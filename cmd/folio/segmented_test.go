package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

// TestSegmentedFormat drives the segmented layout through the commands: a
// segmented index is created, filled, queried, shown by stats with its
// segments and tombstones, migrated to Vectra's protobuf file and back.
func TestSegmentedFormat(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	created := decode[map[string]any](t, must(t, dir, 0, "create", "ix", "--format", "segmented", "--hash-dims", "64", "--json"))
	if created["format"] != "segmented" {
		t.Fatalf("create --json: %v", created)
	}
	must(t, dir, 0, "add", "ix", "--uri", "docs")
	// Replacing a document leaves tombstones for its old chunks.
	if err := os.WriteFile(filepath.Join(dir, "docs", "bread.md"), []byte("# Bread\n\nSourdough bread rises slowly with wild yeast."), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, dir, 0, "add", "ix", "--uri", "docs")
	st := decode[map[string]any](t, must(t, dir, 0, "stats", "ix", "--json"))
	if st["format"] != "segmented" || st["layout"] != "segmented" || st["documents"] != float64(3) || st["segments"].(float64) < 1 || st["tombstones"].(float64) < 1 {
		t.Fatalf("stats: %v", st)
	}
	if text := must(t, dir, 0, "stats", "ix").stdout; !strings.Contains(text, "layout: segmented") || !strings.Contains(text, "tombstones:") {
		t.Errorf("stats text:\n%s", text)
	}
	q := decode[queryOutput](t, must(t, dir, 0, "query", "ix", "sourdough wild yeast", "--json", "--dc", "1"))
	if len(q.Results) != 1 || !strings.HasSuffix(q.Results[0].URI, "bread.md") {
		t.Fatalf("query: %+v", q)
	}
	if _, err := os.Stat(filepath.Join(dir, "ix", "index.pb")); !os.IsNotExist(err) {
		t.Fatalf("a segmented index has index.pb: %v", err)
	}
	must(t, dir, 0, "migrate", "ix", "--to", "protobuf")
	st = decode[map[string]any](t, must(t, dir, 0, "stats", "ix", "--json"))
	if st["format"] != "protobuf" || st["layout"] != "file" || st["documents"] != float64(3) {
		t.Fatalf("stats after migrating to protobuf: %v", st)
	}
	if _, err := os.Stat(filepath.Join(dir, "ix", "index.pb")); err != nil {
		t.Fatal(err)
	}
	must(t, dir, 0, "migrate", "ix", "--to", "segmented")
	st = decode[map[string]any](t, must(t, dir, 0, "stats", "ix", "--json"))
	if st["format"] != "segmented" || st["tombstones"] != float64(0) || st["documents"] != float64(3) {
		t.Fatalf("stats after migrating back: %v", st)
	}
	q = decode[queryOutput](t, must(t, dir, 0, "query", "ix", "sourdough wild yeast", "--json", "--dc", "1"))
	if len(q.Results) != 1 || !strings.HasSuffix(q.Results[0].URI, "bread.md") {
		t.Fatalf("query after migrating back: %+v", q)
	}
}

// folio serve compacts a segmented index it serves in the background once
// enough of its rows are deleted (--compact-interval).
func TestServeCompactsInTheBackground(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := storagefs.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := core.IndexOptions{Storage: st, Codec: codecpb.New()}
	ix, err := core.NewLocalIndex(filepath.Join(dir, "ix"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented}); err != nil {
		t.Fatal(err)
	}
	items := make([]core.IndexItem, 12000)
	for i := range items {
		items[i] = core.IndexItem{ID: fmt.Sprint("i", i), Vector: []float32{float32(i), 1}}
	}
	if _, err := ix.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	if err := ix.BeginUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 4500 {
		if err := ix.DeleteItem(ctx, fmt.Sprint("i", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.EndUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	pid := filepath.Join(dir, "serve.pid")
	must(t, dir, 0, "serve", "ix", "--port", fmt.Sprint(freePort(t)), "--daemon", "--pid-file", pid, "--compact-interval", "20ms")
	t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pid).Run() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		fresh, err := core.NewLocalIndex(filepath.Join(dir, "ix"), opts)
		if err != nil {
			t.Fatal(err)
		}
		stats, err := fresh.GetIndexStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Storage.Tombstones == 0 {
			if stats.Items != 7500 || stats.Storage.Segments != 1 {
				t.Fatalf("after the compaction: %+v", stats)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("folio serve did not compact: %+v", stats.Storage)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
