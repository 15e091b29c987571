package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/foliovec/folio"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

// TestPublishAndQueryOverHTTP publishes an index, serves the folder from a
// static file server on 127.0.0.1, and queries it by URL: the answers equal
// the local index's, and nothing but GET and HEAD reaches the host.
func TestPublishAndQueryOverHTTP(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	must(t, dir, 0, "create", "ix", "--hash-dims", "64")
	must(t, dir, 0, "add", "ix", "--uri", "docs")
	before := listFiles(t, filepath.Join(dir, "ix"))

	pub := decode[publishResult](t, must(t, dir, 0, "publish", "ix", "site/search", "--json"))
	if pub.Rows == 0 || pub.Files == 0 || pub.IndexBytes == 0 || pub.Model == nil || pub.Model.Kind != "hash" || pub.ModelBytes != 0 {
		t.Fatalf("publish --json: %+v", pub)
	}
	if after := listFiles(t, filepath.Join(dir, "ix")); !slices.Equal(before, after) {
		t.Errorf("publish changed the source index's files: %v, then %v", before, after)
	}
	published := listFiles(t, filepath.Join(dir, "site", "search"))
	for _, want := range []string{"index.pb.segments", "catalog.pb", ".folio-keywords", ".folio-model.json"} {
		if !slices.Contains(published, want) {
			t.Errorf("the published folder lacks %s: %v", want, published)
		}
	}
	if n := len(filterSuffix(published, ".seg")); n != 1 {
		t.Errorf("the published folder holds %d segments, want 1: %v", n, published)
	}
	if r := folioIn(t, dir, "publish", "ix", "site/search"); r.code == 0 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("publish over an existing folder: exit %d, stderr %q; want a failure naming --force", r.code, r.stderr)
	}

	var writes, requests atomic.Int64
	files := http.FileServer(http.Dir(filepath.Join(dir, "site")))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writes.Add(1)
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	url := srv.URL + "/search"

	for _, q := range []string{"sourdough yeast bread", "orbital thrust", "cats purr"} {
		local := decode[queryOutput](t, must(t, dir, 0, "query", "ix", q, "--json", "--dc", "2"))
		web := decode[queryOutput](t, must(t, dir, 0, "query", url, q, "--json", "--dc", "2"))
		if len(local.Results) == 0 || len(web.Results) != len(local.Results) {
			t.Fatalf("%q: %d results over HTTP, %d local", q, len(web.Results), len(local.Results))
		}
		for i := range local.Results {
			l, w := local.Results[i], web.Results[i]
			if l.URI != w.URI || l.Score != w.Score || len(l.Sections) != len(w.Sections) || len(l.Sections) > 0 && l.Sections[0].Text != w.Sections[0].Text {
				t.Errorf("%q, result %d: %s %v over HTTP, %s %v local", q, i, w.URI, w.Score, l.URI, l.Score)
			}
		}
	}
	st := decode[map[string]any](t, must(t, dir, 0, "stats", url, "--json"))
	if st["documents"] != float64(3) || st["layout"] != "segmented" {
		t.Errorf("stats over HTTP: %v", st)
	}
	r := folioIn(t, dir, "add", url, "--uri", "docs")
	if r.code == 0 || !strings.Contains(r.stderr, "read-only") {
		t.Errorf("add to an index over HTTP: exit %d, stderr %q; want a read-only error", r.code, r.stderr)
	}
	if writes.Load() != 0 {
		t.Errorf("%d requests other than GET and HEAD reached the host", writes.Load())
	}
	if requests.Load() == 0 {
		t.Error("no request reached the host")
	}
}

// listFiles is the sorted names of the files in dir.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// filterSuffix is the names ending in suffix.
func filterSuffix(names []string, suffix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasSuffix(n, suffix) {
			out = append(out, n)
		}
	}
	return out
}

// TestPublishAnIndexWithoutAModel publishes a document index Vectra wrote,
// which names no model: without a model flag the copy is published with a
// note and no keyword file; a model flag whose vectors do not fit fails,
// and the folder begun is removed.
func TestPublishAnIndexWithoutAModel(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "testdata", "vectra-0.15", "docs-json")
	if err := os.CopyFS(filepath.Join(dir, "vectra"), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	pub := decode[publishResult](t, must(t, dir, 0, "publish", "vectra", "site/search", "--json"))
	if pub.Model != nil || !strings.Contains(pub.Note, "--hash-dims") || pub.Rows == 0 {
		t.Errorf("publish of an index without a model: %+v", pub)
	}
	if files := listFiles(t, filepath.Join(dir, "site", "search")); slices.Contains(files, ".folio-keywords") || slices.Contains(files, ".folio-model.json") {
		t.Errorf("a keyword or model file without a model: %v", files)
	}
	r := folioIn(t, dir, "publish", "vectra", "site/other", "--hash-dims", "8")
	if r.code == 0 || !strings.Contains(r.stderr, "dimension") {
		t.Errorf("publish with a model of other dimensions: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "site", "other")); !os.IsNotExist(err) {
		t.Errorf("a failed publish left its folder: %v", err)
	}
}

// TestPublishAPartitionedIndex publishes a vector index large enough to
// partition: the copy holds the partitions file, and not the grouped codes
// file, which only an open that maps the folder reads (a static host's
// readers read the codes in ranges); the copy answers as the source does.
func TestPublishAPartitionedIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "vectors")
	ix, err := folio.NewLocalIndex(src, &core.IndexOptions{Codec: codecpb.New()})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	const d = 16
	centres := make([][]float32, 200)
	for i := range centres {
		centres[i] = unitVector(r, d)
	}
	items := make([]core.IndexItem, core.PartitionMinRows)
	for i := range items {
		v := unitVector(r, d)
		for j := range v {
			v[j] = centres[i%len(centres)][j] + 0.2*v[j]
		}
		items[i] = core.IndexItem{ID: fmt.Sprint("v", i), Vector: v}
	}
	if _, err := ix.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	pub := decode[publishResult](t, must(t, dir, 0, "publish", "vectors", "site", "--json"))
	if pub.Partitions == 0 || pub.Rows != len(items) {
		t.Fatalf("publish of %d rows: %+v", len(items), pub)
	}
	files := listFiles(t, filepath.Join(dir, "site"))
	if !slices.ContainsFunc(files, func(f string) bool { return strings.HasSuffix(f, ".partitions") }) ||
		slices.ContainsFunc(files, func(f string) bool { return strings.HasSuffix(f, ".groups") }) {
		t.Errorf("published files %v: want the partitions file and no grouped codes file", files)
	}
	copied, err := folio.NewLocalIndex(filepath.Join(dir, "site"), &core.IndexOptions{Codec: codecpb.New(), ScanCodes: core.CodesInt4})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range items[:20] {
		want, err := ix.QueryItems(ctx, q.Vector, "", 3, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := copied.QueryItems(ctx, q.Vector, "", 3, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || got[0].Item.ID != want[0].Item.ID {
			t.Fatalf("query %s: the copy answers %v, the source %v", q.ID, got, want)
		}
	}
}
