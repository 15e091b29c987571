package main

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/core"
)

// listURIs returns the URIs the document index at dir/name stores, sorted.
func listURIs(t *testing.T, dir, name string) []string {
	t.Helper()
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: filepath.Join(dir, name)})
	if err != nil {
		t.Fatal(err)
	}
	uris, err := ix.DocumentURIs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(uris)
	return uris
}

// Every path add is given is accounted for: a missing path, a typo in a
// folder name, a missing --list entry, a binary file and a FIFO named
// explicitly are reported on stderr with the reason, the rest is added,
// and the exit status is 1; --json lists each kind apart.
func TestAddAccountsForEveryPath(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	must(t, dir, 0, "create", "ix", "--hash-dims", "32")
	os.WriteFile(filepath.Join(dir, "docs", "logo.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00"), 0o644)
	os.WriteFile(filepath.Join(dir, "blob.txt"), []byte("text\x00with a NUL"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "list.txt"), []byte("docs/cats.md\nmissing-from-list.md\n"), 0o644)

	r := must(t, dir, 1, "add", "ix", "--json", "--uri", "docs", "nope.md", "dcos/", "blob.txt", "pipe", "--list", "list.txt")
	rep := decode[addReport](t, r)
	abs := func(p string) string { return filepath.Join(dir, p) }
	if len(rep.Added) != 3 || len(rep.Updated) != 0 || len(rep.Unchanged) != 0 {
		t.Errorf("added %v, updated %v, unchanged %v; want the 3 documents of docs/ added once", rep.Added, rep.Updated, rep.Unchanged)
	}
	var failed, skippedURIs []string
	for _, f := range rep.Failed {
		failed = append(failed, f.URI)
		if f.Error == "" {
			t.Errorf("failure of %s has no reason", f.URI)
		}
	}
	for _, s := range rep.Skipped {
		skippedURIs = append(skippedURIs, s.URI+" ("+s.Reason+")")
	}
	slices.Sort(failed)
	slices.Sort(skippedURIs)
	if want := []string{abs("dcos"), abs("missing-from-list.md"), abs("nope.md")}; !slices.Equal(failed, want) {
		t.Errorf("failed %v, want %v", failed, want)
	}
	if want := []string{abs("blob.txt") + " (binary file)", abs("docs/logo.png") + " (binary file)", abs("pipe") + " (not a regular file or a folder)"}; !slices.Equal(skippedURIs, want) {
		t.Errorf("skipped %v, want %v", skippedURIs, want)
	}
	for _, p := range []string{"nope.md: no such file or folder", "dcos: no such file or folder", "missing-from-list.md", "blob.txt: binary file", "pipe: not a regular file"} {
		if !strings.Contains(r.stderr, p) {
			t.Errorf("stderr does not report %q:\n%s", p, r.stderr)
		}
	}
	// A binary file below a folder is listed, but does not fail add.
	r = must(t, dir, 0, "add", "ix", "--uri", "docs")
	if !strings.Contains(r.stderr, "logo.png: binary file") || !strings.Contains(r.stdout, "3 unchanged") {
		t.Errorf("add of a folder with a binary file: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	// Nothing named exists: nothing is added, and add says so.
	r = must(t, dir, 1, "add", "ix", "--uri", "gone.md")
	if !strings.Contains(r.stdout, "added 0 documents") || !strings.Contains(r.stderr, "1 of 1 paths and URLs named could not be added") {
		t.Errorf("add of a missing file: stdout %q, stderr %q", r.stdout, r.stderr)
	}
}

// Added, updated and unchanged documents are told apart, a file named
// twice is one document, and the wording counts right.
func TestAddReportsWhatChanged(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	must(t, dir, 0, "create", "ix", "--hash-dims", "32")
	r := must(t, dir, 0, "add", "ix", "--uri", "docs/cats.md")
	if !strings.HasPrefix(r.stdout, "added 1 document, updated 0, 0 unchanged: 1 chunk embedded in 1 batch") {
		t.Errorf("stdout %q", r.stdout)
	}
	os.WriteFile(filepath.Join(dir, "docs", "cats.md"), []byte("Cats are edited now."), 0o644)
	rep := decode[addReport](t, must(t, dir, 0, "add", "ix", "--json", "--uri", "docs/cats.md", "--uri", "docs/cats.md", "--uri", "docs/bread.md"))
	if !slices.Equal(rep.Updated, []string{filepath.Join(dir, "docs", "cats.md")}) || len(rep.Added) != 1 || len(rep.Unchanged) != 0 {
		t.Errorf("after an edit: %+v, want cats.md updated and bread.md added", rep)
	}
	r = must(t, dir, 0, "add", "ix", "--uri", "docs/cats.md", "--uri", "docs/cats.md")
	if !strings.Contains(r.stdout, "added 0 documents, updated 0, 1 unchanged") {
		t.Errorf("one file named twice: %q, want 1 unchanged", r.stdout)
	}
}

// One file is one document whatever spelling names it: add stores the
// absolute path, as watch does; remove takes any spelling and folders, and
// reports URIs that are not in the index.
func TestOneFileOneDocument(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	must(t, dir, 0, "create", "ix", "--hash-dims", "32")
	must(t, dir, 0, "add", "ix", "--uri", "docs/cats.md")
	must(t, dir, 0, "add", "ix", "--uri", "./docs/cats.md")
	must(t, dir, 0, "add", "ix", "--uri", filepath.Join(dir, "docs", "cats.md"))
	must(t, filepath.Join(dir, "docs"), 0, "add", filepath.Join(dir, "ix"), "--uri", "cats.md", "../docs")
	want := []string{filepath.Join(dir, "docs", "bread.md"), filepath.Join(dir, "docs", "cats.md"), filepath.Join(dir, "docs", "rockets.md")}
	if got := listURIs(t, dir, "ix"); !slices.Equal(got, want) {
		t.Fatalf("stored %v, want %v", got, want)
	}
	// watch on the same folder finds every file already there.
	watchOnce(t, dir, "ix", "docs")
	if got := listURIs(t, dir, "ix"); !slices.Equal(got, want) {
		t.Fatalf("after watch: stored %v, want %v", got, want)
	}

	r := must(t, dir, 1, "remove", "ix", "--json", "--uri", "./docs/cats.md", "docs/nothing.md")
	out := decode[struct{ Removed, NotFound []string }](t, r)
	if !slices.Equal(out.Removed, want[1:2]) || !slices.Equal(out.NotFound, []string{"docs/nothing.md"}) {
		t.Errorf("remove: %v", out)
	}
	if !strings.Contains(r.stderr, "not in the index: docs/nothing.md") {
		t.Errorf("remove stderr %q", r.stderr)
	}
	r = must(t, dir, 0, "remove", "ix", "--uri", "docs/")
	if got := listURIs(t, dir, "ix"); len(got) != 0 || strings.Count(r.stdout, "removed ") != 2 {
		t.Errorf("remove of a folder left %v; stdout %q", got, r.stdout)
	}
}

// watchOnce runs watch on paths until it has synced, then stops it; it
// fails the test if watch adds a document.
func watchOnce(t *testing.T, dir, index string, paths ...string) {
	t.Helper()
	added, err := watchUntilReady(dir, append([]string{"watch", index, "--uri"}, paths...)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range added {
		t.Errorf("watch added %s again", line)
	}
}

// watchUntilReady runs the watch command line args in dir until it says it
// is watching, then stops it (Ctrl-C) and returns the "added" lines it
// printed before.
func watchUntilReady(dir string, args ...string) ([]string, error) {
	cmd := exec.Command(folioBin, args...)
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var added []string
	ready := false
	for sc := bufio.NewScanner(stdout); sc.Scan(); {
		if strings.HasPrefix(sc.Text(), "added ") {
			added = append(added, sc.Text())
		}
		if strings.HasPrefix(sc.Text(), "watching") {
			ready = true
			break
		}
	}
	_ = cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	if !ready {
		return added, fmt.Errorf("folio %s never said it was watching (%v)", strings.Join(args, " "), err)
	}
	return added, err
}

// A document a Vectra-made index stores under a relative path is found,
// not duplicated, when add names the same file.
func TestAddFindsARelativeSpellingStored(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	must(t, dir, 0, "create", "ix", "--hash-dims", "32")
	// As Vectra's CLI stores it: the URI as typed.
	must(t, dir, 0, "add", "ix", "--uri", "docs/cats.md")
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: filepath.Join(dir, "ix"), Embeddings: mustHash(t, 32)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.DeleteDocument(t.Context(), filepath.Join(dir, "docs", "cats.md")); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	if _, err := ix.UpsertDocument(t.Context(), "docs/cats.md", "Cats purr.", "md", nil, nil); err != nil {
		t.Fatal(err)
	}
	rep := decode[addReport](t, must(t, dir, 0, "add", "ix", "--json", "--uri", filepath.Join(dir, "docs", "cats.md")))
	if !slices.Equal(rep.Updated, []string{"docs/cats.md"}) {
		t.Errorf("add of a file stored under a relative path: %+v, want it updated under that path", rep)
	}
	if got := listURIs(t, dir, "ix"); !slices.Equal(got, []string{"docs/cats.md"}) {
		t.Errorf("stored %v", got)
	}
}

// Progress is reported without a terminal: a line on stderr every so
// often (5 s by default); --quiet silences it.
func TestAddProgressWithoutATerminal(t *testing.T) {
	dir := t.TempDir()
	writeManyDocs(t, dir, 30)
	srv := embeddingsServer(t, 20*time.Millisecond)
	keys := writeKeys(t, dir, srv.URL, 40)
	must(t, dir, 0, "create", "ix")
	r := must(t, dir, 0, "add", "ix", "--keys", keys, "--uri", "many", "--concurrency", "1", "--progress-every", "50ms")
	if n := strings.Count(r.stderr, "adding: "); n < 2 || !strings.Contains(r.stderr, "chunks/s") || !strings.Contains(r.stderr, "30 files read") {
		t.Errorf("%d progress lines, want several:\n%s", n, r.stderr)
	}
	os.WriteFile(filepath.Join(dir, "many", "note-0000.md"), []byte("changed"), 0o644)
	r = must(t, dir, 0, "add", "ix", "--keys", keys, "--uri", "many", "--progress-every", "1ns", "--quiet")
	if r.stderr != "" {
		t.Errorf("--quiet: stderr %q", r.stderr)
	}
}

// The smaller wording fixes.
func TestWording(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	// A new, empty index: "the index is empty", not a usage error.
	must(t, dir, 0, "create", "ix")
	if r := must(t, dir, 0, "query", "ix", "cats"); !strings.Contains(r.stdout, "the index is empty") {
		t.Errorf("query of an empty index: %q", r.stdout)
	}
	// create and migrate say nothing done when they fail.
	r := must(t, dir, 1, "create", "ix")
	if strings.Contains(r.stdout, "creat") {
		t.Errorf("a failed create printed %q", r.stdout)
	}
	r = must(t, dir, 1, "migrate", "nothere", "--to", "protobuf")
	if strings.Contains(r.stdout, "migrat") {
		t.Errorf("a failed migrate printed %q", r.stdout)
	}
	// stats --json spells the metadata config as the index file does.
	st := decode[map[string]any](t, must(t, dir, 0, "stats", "ix", "--json"))
	if mc, ok := st["metadataConfig"].(map[string]any); !ok || fmt.Sprint(mc["indexed"]) != "[]" || len(mc) != 1 {
		t.Errorf("stats metadataConfig = %v", st["metadataConfig"])
	}
	// Help shows boolean flags as flags.
	if r := must(t, dir, 0, "query", "--help"); strings.Contains(r.stdout, "[=true|false]") || !strings.Contains(r.stdout, "--bm25 ") {
		t.Errorf("help:\n%s", r.stdout)
	}
	// serve on a missing index: one line.
	r = must(t, dir, 1, "serve", "nothere", "--port", fmt.Sprint(freePort(t)))
	if want := "folio: no index at " + filepath.Join(dir, "nothere") + " (folio create makes one)\n"; r.stderr != want {
		t.Errorf("serve of a missing index: %q, want %q", r.stderr, want)
	}
}

// Vectra's command lines, from its CLI reference and help, run unchanged
// (the keys file points at a local embeddings server, the web pages at a
// local web server).
func TestVectraCommandLines(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	srv := embeddingsServer(t, 0)
	writeKeys(t, dir, srv.URL, 8000)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "Page %s talks about hybrid retrieval and rockets.", r.URL.Path)
	}))
	t.Cleanup(web.Close)
	page := func(p string) string { return web.URL + p }
	os.WriteFile(filepath.Join(dir, "uris.txt"), []byte(page("/page")+"\n./docs/cats.md\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "remove.txt"), []byte("./docs/cats.md\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "watch-paths.txt"), []byte("./docs\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "notes"), 0o755)
	os.WriteFile(filepath.Join(dir, "notes", "n.txt"), []byte("A note about bread."), 0o644)

	for _, line := range [][]string{
		{"create", "./my-doc-index"},
		{"add", "./my-doc-index", "--keys", "./keys.json", "--uri", page("/page")},
		{"add", "./my-doc-index", "--keys", "./keys.json", "--uri", page("/page1"), "--uri", page("/page2"), "--uri", "./docs/rockets.md"},
		{"add", "./my-doc-index", "--keys", "./keys.json", "--list", "./uris.txt"},
		{"add", "./my-doc-index", "-k", "./keys.json", "-u", "./docs/bread.md", "./docs/cats.md", "-cs", "256"},
		{"add", "./my-doc-index", "--keys", "./keys.json", "--uri", "./notes/n.txt", "--chunkSize", "128"},
		{"query", "./my-doc-index", "What is Vectra?", "--keys", "./keys.json"},
		{"query", "./my-doc-index", "hybrid retrieval", "--keys", "./keys.json", "--document-count", "3", "--chunk-count", "50", "--section-count", "1", "--tokens", "1200", "--format", "sections", "--overlap", "true", "--bm25", "true"},
		{"query", "./my-doc-index", "rockets", "--keys", "./keys.json", "--documentCount", "2", "--no-overlap", "-b", "--dc", "2", "-f", "chunks"},
		{"query", "./my-doc-index", "rockets", "-k", "./keys.json", "-dc", "1", "-cc", "10", "-sc", "2", "-t", "500", "--overlap", "false"},
		{"remove", "./my-doc-index", "--uri", page("/page")},
		{"remove", "./my-doc-index", "--list", "./remove.txt"},
		{"stats", "./my-doc-index"},
		{"--version"},
		{"--help"},
	} {
		r := folioIn(t, dir, line...)
		if r.code != 0 {
			t.Errorf("folio %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(line, " "), r.code, r.stdout, r.stderr)
		}
	}
	// The hybrid queries left the keyword file for the next process.
	if _, err := os.Stat(filepath.Join(dir, "my-doc-index", ".folio-keywords")); err != nil {
		t.Errorf("query --bm25 kept no keyword file: %v", err)
	}
	got := listURIs(t, dir, "my-doc-index")
	want := []string{page("/page1"), page("/page2"), filepath.Join(dir, "docs", "bread.md"), filepath.Join(dir, "docs", "rockets.md"), filepath.Join(dir, "notes", "n.txt")}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("after Vectra's command lines the index holds %v, want %v", got, want)
	}
	if r := must(t, dir, 0, "--version"); !strings.HasPrefix(r.stdout, "folio ") {
		t.Errorf("--version: %q", r.stdout)
	}
	must(t, dir, 0, "migrate", "./my-doc-index", "--to", "protobuf")

	// watch's lines: --extensions with space-separated values and a list.
	for _, line := range [][]string{
		{"watch", "./my-doc-index", "--keys", "./keys.json", "--uri", "./docs", "--uri", "./notes", "--extensions", ".txt", ".md", ".html"},
		{"watch", "./my-doc-index", "--keys", "./keys.json", "--list", "./watch-paths.txt"},
		{"watch", "./my-doc-index", "--keys", "./keys.json", "--uri", "./docs", "--debounce", "1000", "--chunk-size", "256"},
	} {
		if _, err := watchUntilReady(dir, line...); err != nil {
			t.Error(err)
		}
	}
}

// mustHash is the word-hashing model of the CLI's --hash-dims n.
func mustHash(t *testing.T, n int) core.EmbeddingsModel {
	t.Helper()
	return embedhash.New(&embedhash.Options{Dimensions: n})
}

// --vectra-chunking makes Vectra's (many, small) chunks; by default chunks
// fill their token budget; --fusion rrf ranks hybrid matches together.
func TestChunkingAndFusionFlags(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	for i := range 40 {
		fmt.Fprintf(&src, "func f%d(x int) int {\n\tif x > %d {\n\t\treturn x\n\t}\n\treturn %d\n}\n\n", i, i, i)
	}
	os.WriteFile(filepath.Join(dir, "code.go"), []byte(src.String()), 0o644)
	chunks := map[string]float64{}
	for name, extra := range map[string][]string{"budget": nil, "vectra": {"--vectra-chunking"}} {
		must(t, dir, 0, "create", name, "--hash-dims", "32")
		must(t, dir, 0, append([]string{"add", name, "--uri", "code.go"}, extra...)...)
		chunks[name] = decode[map[string]any](t, must(t, dir, 0, "stats", name, "--json"))["chunks"].(float64)
	}
	if chunks["budget"] >= chunks["vectra"]/4 {
		t.Errorf("chunks: %v by the token budget, %v with --vectra-chunking; want far fewer by the budget", chunks["budget"], chunks["vectra"])
	}
	q := decode[queryOutput](t, must(t, dir, 0, "query", "vectra", "return x", "--bm25", "--fusion", "rrf", "--json", "-f", "chunks"))
	if len(q.Results) == 0 || q.Results[0].Score <= 0 || q.Results[0].Score > 2.0/61 {
		t.Errorf("fused results %+v", q.Results)
	}
	must(t, dir, 2, "query", "vectra", "return x", "--bm25", "--fusion", "borda")
}

// query ranks by rank fusion unless told otherwise; Vectra's flags keep
// Vectra's meaning, and contradictions are usage errors.
func TestQueryRanking(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	must(t, dir, 0, "create", "ix", "--hash-dims", "64")
	must(t, dir, 0, "add", "ix", "--uri", "docs")
	for _, tc := range []struct {
		args    []string
		ranking string
	}{
		{nil, rankingFusion},
		{[]string{"--ranking", "fusion"}, rankingFusion},
		{[]string{"--fusion", "rrf"}, rankingFusion},
		{[]string{"--bm25", "--fusion", "rrf"}, rankingFusion},
		{[]string{"--bm25"}, rankingHybrid},
		{[]string{"--bm25", "true"}, rankingHybrid},
		{[]string{"--bm25=false"}, rankingVector},
		{[]string{"--ranking", "hybrid"}, rankingHybrid},
		{[]string{"--ranking", "vector"}, rankingVector},
		{[]string{"--vectra"}, rankingVector},
		{[]string{"--vectra", "--bm25"}, rankingHybrid},
	} {
		q := decode[queryOutput](t, must(t, dir, 0, append([]string{"query", "ix", "rocket", "--json"}, tc.args...)...))
		if q.Ranking != tc.ranking {
			t.Errorf("query %v: ranking %q, want %q", tc.args, q.Ranking, tc.ranking)
		}
	}
	for _, bad := range [][]string{
		{"--ranking", "vector", "--bm25"},
		{"--ranking", "hybrid", "--bm25=false"},
		{"--ranking", "hybrid", "--fusion", "rrf"},
		{"--ranking", "fusion", "--vectra"},
		{"--fusion", "rrf", "--vectra"},
		{"--ranking", "borda"},
		{"--tokens", "0"},
		{"--document-count", "0"},
	} {
		if r := must(t, dir, 2, append([]string{"query", "ix", "rocket"}, bad...)...); r.stderr == "" {
			t.Errorf("query %v: exit 2 with nothing said", bad)
		}
	}
	// --vectra is Vectra's query: its sections and sizes. By default five
	// documents, each a passage cut at line boundaries.
	def := decode[queryOutput](t, must(t, dir, 0, "query", "ix", "rocket thrust", "--json"))
	vec := decode[queryOutput](t, must(t, dir, 0, "query", "ix", "rocket thrust", "--vectra", "--json"))
	if def.Ranking != rankingFusion || vec.Ranking != rankingVector {
		t.Errorf("rankings %q and %q, want %q and %q", def.Ranking, vec.Ranking, rankingFusion, rankingVector)
	}
	if len(def.Results) == 0 || len(def.Results) > 5 || len(vec.Results) < len(def.Results) {
		t.Errorf("%d documents by default, %d with --vectra: want at most 5, and as many or more with --vectra", len(def.Results), len(vec.Results))
	}
}
