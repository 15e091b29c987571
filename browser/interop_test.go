//go:build js && wasm

package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"syscall/js"
	"testing"
	"time"

	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	fetchbrowser "github.com/foliovec/folio/adapters/fetch-browser"
	storageidb "github.com/foliovec/folio/adapters/storage-idb"
	"github.com/foliovec/folio/browser"
	"github.com/foliovec/folio/conformance/browsertest"
	"github.com/foliovec/folio/core"
)

// dbName returns a database name of the test's own, deleted when it ends.
func dbName(t *testing.T) string {
	name := "folio-browser-" + t.Name()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := storageidb.New(&storageidb.Options{Name: name}).Destroy(ctx); err != nil {
			t.Errorf("destroy %s: %v", name, err)
		}
	})
	return name
}

// docs are the documents the page-level cases index.
var docs = map[string]string{
	"notes/rivers.txt": "Rivers carry fresh water to the sea. The Danube flows through ten countries.",
	"notes/stars.txt":  "Stars burn hydrogen into helium. The Sun is a yellow dwarf star.",
}

// docResult is what a query answers, comparable across page loads.
type docResult struct {
	URI   string
	Score float64
	Text  string
}

func queryDocs(ctx context.Context, t *testing.T, ix *core.LocalDocumentIndex, q string) []docResult {
	t.Helper()
	results, err := ix.QueryDocuments(ctx, q, &core.DocumentQueryOptions{MaxDocuments: 2})
	if err != nil {
		t.Fatalf("QueryDocuments(%q): %v", q, err)
	}
	var out []docResult
	for _, r := range results {
		sections, err := r.RenderSections(ctx, 200, 1, true)
		if err != nil || len(sections) == 0 {
			t.Fatalf("RenderSections of %s: %v", r.URI(), err)
		}
		out = append(out, docResult{r.URI(), r.Score, sections[0].Text})
	}
	return out
}

// A page writes a document index with Folio's defaults into IndexedDB; a
// fresh storage value over the same database (as a reloaded page has)
// reads the same files and answers the same queries.
func TestWrittenIndexReadsBackThroughAFreshStorage(t *testing.T) {
	ctx := t.Context()
	name := dbName(t)
	model := embedhash.New(&embedhash.Options{Dimensions: 256})
	first := storageidb.New(&storageidb.Options{Name: name})
	ix, err := browser.NewLocalDocumentIndex(browser.DocumentIndexConfig{FolderPath: "kb", Embeddings: model, IndexOptions: core.IndexOptions{Storage: first}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Version: 1}); err != nil {
		t.Fatal(err)
	}
	for _, uri := range slices.Sorted(func(yield func(string) bool) {
		for k := range docs {
			if !yield(k) {
				return
			}
		}
	}) {
		if _, err := ix.UpsertDocument(ctx, uri, docs[uri], "txt", nil, nil); err != nil {
			t.Fatalf("UpsertDocument(%s): %v", uri, err)
		}
	}
	before := queryDocs(ctx, t, ix, "Which river flows through many countries?")
	first.Close()

	fresh := storageidb.New(&storageidb.Options{Name: name})
	defer fresh.Close()
	files, err := fresh.ListFiles(ctx, "kb", core.ListFilesOnly)
	if err != nil || len(files) < 4 { // index.json, catalog.json, two documents' .txt and .json
		t.Fatalf("fresh storage lists %v, %v", files, err)
	}
	again, err := browser.NewLocalDocumentIndex(browser.DocumentIndexConfig{FolderPath: "kb", Embeddings: model, IndexOptions: core.IndexOptions{Storage: fresh}})
	if err != nil {
		t.Fatal(err)
	}
	after := queryDocs(ctx, t, again, "Which river flows through many countries?")
	if len(before) == 0 || before[0].URI != "notes/rivers.txt" {
		t.Errorf("first page: results %+v, want notes/rivers.txt first", before)
	}
	if !slices.Equal(before, after) {
		t.Errorf("after reopening: %+v\nbefore: %+v", after, before)
	}
}

// loadVectra loads Vectra's browser build into the page, or skips when
// the test run was not given it.
func loadVectra(t *testing.T) js.Value {
	t.Helper()
	if v := js.Global().Get("vectra"); v.Truthy() {
		return v
	}
	src := os.Getenv("FOLIO_VECTRA_BUNDLE_URL")
	if src == "" {
		t.Skip("Vectra's browser bundle is not served: run through TestInBrowser with FOLIO_VECTRA_BROWSER_BUNDLE set (make test does)")
	}
	script := js.Global().Get("document").Call("createElement", "script")
	done := make(chan string, 1)
	onLoad := js.FuncOf(func(js.Value, []js.Value) any { done <- ""; return nil })
	onErr := js.FuncOf(func(js.Value, []js.Value) any { done <- "could not load " + src; return nil })
	defer onLoad.Release()
	defer onErr.Release()
	script.Set("onload", onLoad)
	script.Set("onerror", onErr)
	script.Set("src", src)
	js.Global().Get("document").Get("head").Call("appendChild", script)
	if msg := <-done; msg != "" {
		t.Fatal(msg)
	}
	v := js.Global().Get("vectra")
	if !v.Truthy() {
		t.Fatal("the bundle loaded but defines no vectra")
	}
	return v
}

// await waits for promise and returns its value; a rejection fails t.
func await(t *testing.T, promise js.Value) js.Value {
	t.Helper()
	v, err := browsertest.Await(promise)
	if err != nil {
		t.Fatalf("vectra: %v", err)
	}
	return v
}

// items are what both libraries insert: id, vector, metadata.
var items = []struct {
	id     string
	vector []float64
	color  string
}{
	{"a", []float64{1, 0, 0}, "red"},
	{"b", []float64{0.8, 0.6, 0}, "blue"},
	{"c", []float64{0, 0.6, 0.8}, "red"},
}

type hit struct {
	ID    string
	Score float64
	Color string
}

// vectraQuery queries the index in folder through Vectra's LocalIndex
// over its IndexedDBStorage, with a filter on color.
func vectraQuery(t *testing.T, v js.Value, db, folder string) []hit {
	storage := v.Get("IndexedDBStorage").New(db)
	defer storage.Call("close")
	index := v.Get("LocalIndex").New(folder, js.Undefined(), storage)
	res := await(t, index.Call("queryItems", []any{1.0, 0.2, 0.0}, "", 3, map[string]any{"color": map[string]any{"$eq": "red"}}))
	var out []hit
	for i := range res.Length() {
		r := res.Index(i)
		out = append(out, hit{r.Get("item").Get("id").String(), r.Get("score").Float(), r.Get("item").Get("metadata").Get("color").String()})
	}
	return out
}

// folioQuery queries the index in folder through Folio.
func folioQuery(t *testing.T, db, folder string) []hit {
	ctx := t.Context()
	storage := storageidb.New(&storageidb.Options{Name: db})
	defer storage.Close()
	ix, err := browser.NewLocalIndex(folder, &browser.IndexOptions{Storage: storage})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.QueryItems(ctx, []float32{1, 0.2, 0}, "", 3, core.Filter{"color": map[string]any{"$eq": "red"}}, false)
	if err != nil {
		t.Fatalf("Folio QueryItems on %s: %v", folder, err)
	}
	var out []hit
	for _, r := range res {
		out = append(out, hit{r.Item.ID, r.Score, fmt.Sprint(r.Item.Metadata["color"])})
	}
	return out
}

func sameHits(a, b []hit) bool {
	return slices.EqualFunc(a, b, func(x, y hit) bool {
		return x.ID == y.ID && x.Color == y.Color && math.Abs(x.Score-y.Score) < 1e-6
	})
}

// Vectra's browser build writes an index into IndexedDB that Folio reads,
// and reads the one Folio writes, with the same query answers.
func TestVectraCrossRead(t *testing.T) {
	v := loadVectra(t)
	ctx := t.Context()
	db := dbName(t)

	// Vectra writes.
	storage := v.Get("IndexedDBStorage").New(db)
	defer storage.Call("close") // Vectra's storage does not close when a deletion waits
	index := v.Get("LocalIndex").New("vectra-made", js.Undefined(), storage)
	await(t, index.Call("createIndex", map[string]any{"version": 1, "metadata_config": map[string]any{"indexed": []any{"color"}}}))
	for _, it := range items {
		vec := make([]any, len(it.vector))
		for i, x := range it.vector {
			vec[i] = x
		}
		await(t, index.Call("insertItem", map[string]any{"id": it.id, "vector": vec, "metadata": map[string]any{"color": it.color}}))
	}
	storage.Call("close")

	// Folio writes.
	fs := storageidb.New(&storageidb.Options{Name: db})
	fix, err := browser.NewLocalIndex("folio-made", &browser.IndexOptions{Storage: fs})
	if err != nil {
		t.Fatal(err)
	}
	if err := fix.CreateIndex(ctx, core.CreateIndexConfig{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{"color"}}}); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		vec := make([]float32, len(it.vector))
		for i, x := range it.vector {
			vec[i] = float32(x)
		}
		if _, err := fix.InsertItem(ctx, core.IndexItem{ID: it.id, Vector: vec, Metadata: core.Metadata{"color": it.color}}); err != nil {
			t.Fatal(err)
		}
	}
	fs.Close()

	want := []hit{{"a", 0.98058, "red"}, {"c", 0.11767, "red"}}
	for _, folder := range []string{"vectra-made", "folio-made"} {
		fromVectra, fromFolio := vectraQuery(t, v, db, folder), folioQuery(t, db, folder)
		if !sameHits(fromVectra, fromFolio) {
			t.Errorf("%s: Vectra answers %+v, Folio %+v", folder, fromVectra, fromFolio)
		}
		if !slices.EqualFunc(fromFolio, want, func(x, y hit) bool { return x.ID == y.ID && math.Abs(x.Score-y.Score) < 1e-4 }) {
			t.Errorf("%s: Folio answers %+v, want %+v", folder, fromFolio, want)
		}
	}
	// Both libraries wrote the same kind of records.
	for _, folder := range []string{"vectra-made", "folio-made"} {
		got := rawIndexJSON(t, db, folder)
		if got["version"] != 1.0 || len(got["items"].([]any)) != len(items) {
			t.Errorf("%s/index.json = %v", folder, got)
		}
	}
}

// rawIndexJSON reads folder/index.json straight from the database.
func rawIndexJSON(t *testing.T, db, folder string) map[string]any {
	s := storageidb.New(&storageidb.Options{Name: db})
	defer s.Close()
	b, err := s.ReadFile(t.Context(), folder+"/index.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Folio's HTMLToMarkdown against Vectra's BrowserWebFetcher converting the
// same pages with the browser's DOMParser.
func TestHTMLToMarkdownMatchesVectra(t *testing.T) {
	v := loadVectra(t)
	fetcher := v.Get("BrowserWebFetcher").New()
	const base = "https://example.com/docs/page.html"
	pages := []string{
		"<h1>Title  <b>one</b></h1><h3>\n Three </h3><h6>six</h6>",
		"<p>  first part <span>second</span>\n</p><p>next</p>",
		"<p>kept</p><script>x()</script><style>p{}</style><noscript>ns</noscript><iframe>if</iframe><svg><text>sv</text></svg><canvas>cv</canvas>",
		`<a href="../a.html">up</a><a href="/root">root</a><a href="http://x.org/">abs</a><a href="//cdn.org/x">proto</a><a href="#top">frag</a><a>plain</a><a href="x.html"></a>`,
		"<b>b</b><strong>s</strong><i>i</i><em>e</em><code>c  d</code><pre>a\n  b</pre>",
		"<blockquote><p>one</p><p>two</p></blockquote>",
		"<ul><li>a</li><li>b <ul><li>nested</li></ul></li></ul><ol><li>x</li><li>y</li></ol>",
		"<table><tr><th>h1</th><th>h2</th></tr><tr><td>a</td><td> b  c </td></tr><tr><td><table><tr><td>in</td></tr></table></td></tr></table>",
		`<img src="a.png" alt="A"><img src="b.png"><img alt="none">one<br>two<hr>three`,
		"<p>a</p><p></p><p></p><p>b</p><template><p>hidden</p></template>",
		"<html><head><title>T</title></head><body><nav><a href='/'>Home</a> | <a href='/about'>About</a></nav><main><h2>News</h2><p>Text with <em>emphasis</em> and <code>code</code>.</p></main></body></html>",
		"<div>unclosed <p>para <b>bold <i>both</p> after</div><table><td>implied row</td></table>",
		"<frameset><frame src=a.html></frameset>",
		"text \u00a0 with\u2003spaces\ufeff and <b>\u00a0</b>",
		"<p>&lt;escaped&gt; &amp; &copy; &#x1F600;</p><!-- comment --><p>after<!-- inside --> comment</p>",
		"<h2><a href='sec'>Linked <em>heading</em></a></h2><ul><li><a href='one'>one</a></li><li><b>two</b> words</li></ul>",
		"<table><thead><tr><th align=right>n</th></tr></thead><tbody><tr><td>1</td></tr><tr></tr></tbody></table><img src='' alt='empty src'>",
	}
	for i, page := range pages {
		want := fetcher.Call("htmlToMarkdown", page, base).String()
		if got := fetchbrowser.HTMLToMarkdown(page, base); got != want {
			t.Errorf("page %d %q:\nFolio  %q\nVectra %q", i, page, got, want)
		}
	}
}
