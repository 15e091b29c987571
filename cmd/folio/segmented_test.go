package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
