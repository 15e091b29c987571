//go:build !(js && wasm)

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
)

// webAnswer is one query's answer as web.js reports it.
type webAnswer struct {
	URIs    []string
	Scores  []float64
	Passage string
}

// TestPageQueriesAPublishedIndex publishes a document index as folio
// publish lays it out, serves it from the site on 127.0.0.1, and asks it
// from the page through HttpFileStorage: the answers equal those of the
// same folder on disk, only GET and HEAD reach the host, and a write
// rejects.
func TestPageQueriesAPublishedIndex(t *testing.T) {
	const dims = 64
	dir := t.TempDir()
	folder := filepath.Join(dir, "search")
	local := publishedIndex(t, folder, dims)
	queries := []string{"how do rockets reach orbit", "why does bread rise", "cats purr", "sourdough starter"}
	var want []webAnswer
	for _, q := range queries {
		res, err := local.QueryDocuments(t.Context(), q, &core.DocumentQueryOptions{IsBm25: true, Fusion: core.FusionRRF, MaxDocuments: 2})
		if err != nil {
			t.Fatal(err)
		}
		a := webAnswer{URIs: []string{}, Scores: []float64{}}
		for _, r := range res {
			a.URIs, a.Scores = append(a.URIs, r.URI()), append(a.Scores, r.Score)
		}
		if len(res) > 0 {
			sections, err := res[0].Render(t.Context(), &core.RenderOptions{MaxTokens: 60})
			if err != nil {
				t.Fatal(err)
			}
			if len(sections) > 0 {
				a.Passage = sections[0].Text
			}
		}
		want = append(want, a)
	}

	var requests, writes, ranged atomic.Int64
	files := http.StripPrefix("/site/", http.FileServer(http.Dir(dir)))
	host := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writes.Add(1)
		}
		if r.Header.Get("Range") != "" {
			ranged.Add(1)
		}
		p := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/site/")))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			w.Header().Set("ETag", fmt.Sprintf(`"%x-%x"`, fi.ModTime().UnixNano(), fi.Size()))
		}
		files.ServeHTTP(w, r)
	})
	s := newSite(t, map[string]http.Handler{"/site/": host})
	qs, _ := json.Marshal(queries)
	var got struct {
		Answers []webAnswer
		Write   string
	}
	s.runPage(t, newBrowser(t), map[string]string{"test": "web", "lib": "folio", "dims": strconv.Itoa(dims), "queries": string(qs)}, &got)
	if len(got.Answers) != len(want) {
		t.Fatalf("%d answers, want %d", len(got.Answers), len(want))
	}
	for i := range want {
		g, w := got.Answers[i], want[i]
		if !slices.Equal(g.URIs, w.URIs) || !slices.Equal(g.Scores, w.Scores) || g.Passage != w.Passage {
			t.Errorf("%q in the page: %v %v %q\nfrom the disk: %v %v %q", queries[i], g.URIs, g.Scores, g.Passage, w.URIs, w.Scores, w.Passage)
		}
	}
	if !strings.Contains(got.Write, "read-only") {
		t.Errorf("a write to the index over HTTP: %q, want a read-only error", got.Write)
	}
	if requests.Load() == 0 || writes.Load() != 0 || ranged.Load() == 0 {
		t.Errorf("%d requests reached the host, %d of them not GET or HEAD, %d with a Range (want some: the segment read in parts)", requests.Load(), writes.Load(), ranged.Load())
	}
}

// logBook is a document of n numbered entries: enough chunks that the
// segment is read in parts, not whole (a segment under 1,024 rows is).
func logBook(n int) string {
	var b strings.Builder
	b.WriteString("# Log book\n\n")
	for i := range n {
		fmt.Fprintf(&b, "Entry %d: the %s watch noted calm seas and %d gulls astern.\n\n", i, []string{"morning", "evening", "night"}[i%3], i%17)
	}
	return b.String()
}

// publishedIndex writes a document index into folder as folio publish
// leaves one (segmented protobuf, 4-bit codes, its keyword file), and
// returns it opened from the disk.
func publishedIndex(t *testing.T, folder string, dims int) *core.LocalDocumentIndex {
	t.Helper()
	ctx := context.Background()
	fs, err := storagefs.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	open := func() *core.LocalDocumentIndex {
		ix, err := core.NewLocalDocumentIndex(core.LocalDocumentIndexConfig{
			IndexOptions: core.IndexOptions{Storage: fs, Codec: codecpb.New(), ScanCodes: core.CodesInt4, RetainDropped: -1},
			FolderPath:   folder, Embeddings: embedhash.New(&embedhash.Options{Dimensions: dims}), Tokenizer: tokenizertiktoken.New(),
			ChunkingConfig: core.ChunkingConfig{ChunkSize: 24},
		})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	w := open()
	if err := w.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented}); err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{
		"rockets.md": "# Rockets\n\nA rocket burns fuel and oxidizer to make thrust.\n\n## Orbit\n\nOrbital rockets reach about eight kilometres per second, fast enough to fall around the Earth.",
		"bread.md":   "# Bread\n\nBread dough rises because yeast ferments sugars into carbon dioxide.\n\n## Sourdough\n\nA sourdough starter is flour and water that wild yeast has colonised.",
		"cats.md":    "# Cats\n\nCats sleep most of the day and purr when they are content. A cat grooms its fur with its tongue.",
		"log.md":     logBook(1500),
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range docs {
			if !yield(k) {
				return
			}
		}
	}) {
		if _, err := w.UpsertDocument(ctx, name, docs[name], "md", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	// One segment, as folio publish leaves it.
	if _, err := w.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	// The first ranked query writes the keyword file.
	if _, err := w.QueryDocuments(ctx, "rocket", &core.DocumentQueryOptions{IsBm25: true, Fusion: core.FusionRRF}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(folder, ".folio-keywords")); err != nil {
		t.Fatalf("no keyword file: %v", err)
	}
	return open()
}
