package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/foliovec/folio/adapters/fetch"
	"github.com/foliovec/folio/conformance/fetchtest"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core/filetree"
)

// fileHarness publishes texts as files numbered in name order in a fresh
// folder.
func fileHarness(t testing.TB) fetchtest.Harness {
	var mu sync.Mutex
	n := 0
	return fetchtest.Harness{
		Fetcher: fetch.NewFileFetcher(nil),
		Publish: func(t testing.TB, texts []string) (string, []fetchtest.Document) {
			mu.Lock()
			n++
			dir := filepath.Join(t.TempDir(), fmt.Sprintf("source-%d", n))
			mu.Unlock()
			var want []fetchtest.Document
			for i, text := range texts {
				// Every other document in a sub-folder; names sort in
				// the order of texts.
				p := filepath.Join(dir, fmt.Sprintf("%02d-doc.txt", i))
				if i%2 == 1 {
					p = filepath.Join(dir, fmt.Sprintf("%02d-sub", i), "nested.md")
				}
				writeFile(t, p, text)
				want = append(want, fetchtest.Document{URI: p, Text: text, DocType: filepath.Ext(p)[1:]})
			}
			if len(texts) == 1 {
				return want[0].URI, want
			}
			return dir, want
		},
		Unreadable: func(t testing.TB) []string {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			uris := []string{fifo}
			if os.Geteuid() != 0 { // root reads everything
				locked := filepath.Join(dir, "locked.txt")
				writeFile(t, locked, "secret")
				if err := os.Chmod(locked, 0); err != nil {
					t.Fatal(err)
				}
				uris = append(uris, locked)
			}
			return uris
		},
	}
}

func writeFile(t testing.TB, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFileFetcherConforms(t *testing.T) {
	fetchtest.Run(t, fileHarness, fetchtest.Capabilities{Collections: true, Ordered: true})
}

// fetched is what one Fetch reported.
type fetched struct{ uri, text, docType string }

func fetchFiles(t *testing.T, f *fetch.FileFetcher, uri string) []fetched {
	t.Helper()
	var got []fetched
	ok, err := f.Fetch(t.Context(), uri, func(_ context.Context, uri, text, docType string) (bool, error) {
		got = append(got, fetched{uri, text, docType})
		return true, nil
	})
	if err != nil || !ok {
		t.Fatalf("Fetch(%q) = %v, %v", uri, ok, err)
	}
	return got
}

func uris(docs []fetched) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.uri
	}
	return out
}

func TestFileFetcherDocTypes(t *testing.T) {
	dir := t.TempDir()
	for name, want := range map[string]string{
		"README.MD":   "md",
		"a.tar.gz":    "gz", // skipped as binary unless asked for
		"Makefile":    "makefile",
		".gitignore":  ".gitignore",
		"trailing.":   "trailing.",
		"notes.Txt":   "txt",
		"main.go":     "go",
		"data.json5":  "json5",
		"x.y.z.YAML":  "yaml",
		"no-ext-FILE": "no-ext-file",
	} {
		p := filepath.Join(dir, name)
		writeFile(t, p, "content of "+name)
		got := fetchFiles(t, fetch.NewFileFetcher(&fetch.FileOptions{IncludeBinary: true}), p)
		if len(got) != 1 || got[0].docType != want || got[0].uri != p || got[0].text != "content of "+name {
			t.Errorf("%s: got %+v, want docType %q", name, got, want)
		}
	}
}

func TestFileFetcherMissingPathIsSilentSuccess(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "file.txt"), "x")
	for _, p := range []string{filepath.Join(dir, "missing"), filepath.Join(dir, "file.txt", "below-a-file")} {
		called := false
		ok, err := fetch.NewFileFetcher(nil).Fetch(t.Context(), p, func(context.Context, string, string, string) (bool, error) {
			called = true
			return true, nil
		})
		if !ok || err != nil || called {
			t.Errorf("Fetch(%q) = %v, %v (called %v); want true, nil, no callback", p, ok, err, called)
		}
	}
}

func TestFileFetcherWalksInNameOrder(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.md", "a.md", "c/z.md", "c/a.md", "B.md", "ab/x.md"} {
		writeFile(t, filepath.Join(dir, name), name)
	}
	got := uris(fetchFiles(t, fetch.NewFileFetcher(nil), dir))
	var want []string
	for _, name := range []string{"B.md", "a.md", "ab/x.md", "b.md", "c/a.md", "c/z.md"} {
		want = append(want, filepath.Join(dir, name))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v\nwant %v", got, want)
	}
}

func TestFileFetcherSymlinkCycleEnds(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a", "doc.md"), "text")
	// a/loop → a and a/up → the root: both cycles.
	if err := os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "a", "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(dir, "a", "up")); err != nil {
		t.Fatal(err)
	}
	// A dangling link is skipped.
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling.md")); err != nil {
		t.Fatal(err)
	}
	got := fetchFiles(t, fetch.NewFileFetcher(nil), dir)
	want := []string{filepath.Join(dir, "a", "doc.md")}
	if !slices.Equal(uris(got), want) {
		t.Fatalf("got %v, want %v", uris(got), want)
	}
}

// The reproduction of a walk that followed a link to /etc: a tree holding
// links to a folder and a file outside it reads nothing from outside and
// reports each link as skipped with its target; FollowLinks reads what
// they lead to, under its real path.
func TestFileFetcherStaysInsideTheFolder(t *testing.T) {
	secrets := testkit.RealTempDir(t)
	writeFile(t, filepath.Join(secrets, "shadow"), "root:secret")
	writeFile(t, filepath.Join(secrets, "ssl", "key.pem"), "PRIVATE KEY")
	dir := testkit.RealTempDir(t)
	writeFile(t, filepath.Join(dir, "docs", "a.txt"), "inside")
	for link, target := range map[string]string{"etc-link": secrets, "key-link.pem": filepath.Join(secrets, "ssl", "key.pem")} {
		if err := os.Symlink(target, filepath.Join(dir, "docs", link)); err != nil {
			t.Fatal(err)
		}
	}
	docs := filepath.Join(dir, "docs")
	skips := map[string]error{}
	f := fetch.NewFileFetcher(&fetch.FileOptions{OnSkip: func(p string, reason error) { skips[p] = reason }})
	if got := uris(fetchFiles(t, f, docs)); !slices.Equal(got, []string{filepath.Join(docs, "a.txt")}) {
		t.Errorf("read %v, want only docs/a.txt", got)
	}
	for link, target := range map[string]string{"etc-link": secrets, "key-link.pem": filepath.Join(secrets, "ssl", "key.pem")} {
		reason := skips[filepath.Join(docs, link)]
		var le *filetree.LinkError
		if !errors.Is(reason, fetch.ErrOutsideTree) || !errors.As(reason, &le) || le.Target != target {
			t.Errorf("%s: skipped for %v, want ErrOutsideTree naming %s", link, reason, target)
		}
	}
	// Without OnSkip the links are passed over all the same.
	if got := uris(fetchFiles(t, fetch.NewFileFetcher(nil), docs)); len(got) != 1 {
		t.Errorf("without OnSkip: read %v", got)
	}
	follow := fetch.NewFileFetcher(&fetch.FileOptions{FollowLinks: true})
	want := []string{filepath.Join(docs, "a.txt"), filepath.Join(secrets, "shadow"), filepath.Join(secrets, "ssl", "key.pem")}
	if got := uris(fetchFiles(t, follow, docs)); !slices.Equal(got, want) {
		t.Errorf("FollowLinks: read %v, want %v (the key once, under its real path)", got, want)
	}
}

// A folder reached through a link inside the tree and by its own path is
// one set of documents, under the real path.
func TestFileFetcherReportsALinkedFolderOnce(t *testing.T) {
	dir := testkit.RealTempDir(t)
	writeFile(t, filepath.Join(dir, "real", "x.md"), "x")
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if got := uris(fetchFiles(t, fetch.NewFileFetcher(nil), dir)); !slices.Equal(got, []string{filepath.Join(dir, "real", "x.md")}) {
		t.Errorf("read %v, want real/x.md once", got)
	}
}

// A file over the cap is skipped without being read: a 2 GB sparse file
// costs no more memory than a small one.
func TestFileFetcherSkipsAHugeFileUnread(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "small")
	big, err := os.Create(filepath.Join(dir, "huge.log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	big.Close()
	var reason error
	f := fetch.NewFileFetcher(&fetch.FileOptions{OnSkip: func(p string, r error) { reason = r }})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := uris(fetchFiles(t, f, dir))
	runtime.ReadMemStats(&after)
	if !slices.Equal(got, []string{filepath.Join(dir, "a.txt")}) || !errors.Is(reason, fetch.ErrFileTooLarge) {
		t.Errorf("read %v, skipped for %v; want huge.log skipped as too large", got, reason)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("allocated %d bytes", grew)
	}
	small := fetch.NewFileFetcher(&fetch.FileOptions{MaxFileBytes: 3, OnSkip: func(p string, r error) { reason = r }})
	if got := uris(fetchFiles(t, small, filepath.Join(dir, "a.txt"))); len(got) != 0 || !errors.Is(reason, fetch.ErrFileTooLarge) {
		t.Errorf("a named file over MaxFileBytes: read %v, reason %v", got, reason)
	}
}

func TestFileFetcherSkipsBinaryFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes.md"), "# notes")
	writeFile(t, filepath.Join(dir, "logo.png"), "\x89PNG\r\n\x1a\n")
	writeFile(t, filepath.Join(dir, "photo.JPG"), "not even binary content")
	writeFile(t, filepath.Join(dir, "program"), "\x7fELF\x02\x01\x01\x00\x00")
	writeFile(t, filepath.Join(dir, "utf16.txt"), "\xff\xfeh\x00i\x00")
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := uris(fetchFiles(t, fetch.NewFileFetcher(nil), dir)); !slices.Equal(got, []string{filepath.Join(dir, "notes.md")}) {
		t.Errorf("default: got %v, want only notes.md", got)
	}
	all := uris(fetchFiles(t, fetch.NewFileFetcher(&fetch.FileOptions{IncludeBinary: true}), dir))
	if len(all) != 5 {
		t.Errorf("IncludeBinary: got %v, want the 5 files (never the FIFO)", all)
	}
	// Named directly, a binary file is skipped too; a FIFO is an error.
	if got := fetchFiles(t, fetch.NewFileFetcher(nil), filepath.Join(dir, "logo.png")); len(got) != 0 {
		t.Errorf("logo.png named directly: %v", got)
	}
	if _, err := fetch.NewFileFetcher(nil).Fetch(t.Context(), fifo, nil); !errors.Is(err, fetch.ErrNotRegular) {
		t.Errorf("FIFO: %v, want ErrNotRegular", err)
	}
}

func TestFileFetcherReplacesInvalidUTF8(t *testing.T) {
	p := filepath.Join(t.TempDir(), "latin1.txt")
	writeFile(t, p, "caf\xe9 na\xefve \xe2\x82") // ISO-8859-1 bytes and a cut euro sign
	got := fetchFiles(t, fetch.NewFileFetcher(nil), p)
	if want := "caf\uFFFD na\uFFFDve \uFFFD\uFFFD"; len(got) != 1 || got[0].text != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// OnSkip is told of every file a walk passes over, and why: binary files,
// entries that are not files, and entries that cannot be read (the walk
// goes on); an error of the callback still ends the walk.
func TestFileFetcherOnSkip(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("text"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.png"), []byte("png"), 0o644)
	os.WriteFile(filepath.Join(dir, "c.txt"), []byte("nul\x00"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "d.fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file name too long to read: os.Stat fails with ENAMETOOLONG on
	// the symbolic link's target.
	if err := os.Symlink(filepath.Join(dir, strings.Repeat("x", 300)), filepath.Join(dir, "e.link")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("more text"), 0o644)
	var skipped []string
	f := fetch.NewFileFetcher(&fetch.FileOptions{OnSkip: func(p string, reason error) {
		skipped = append(skipped, filepath.Base(p)+": "+reason.Error())
	}})
	var got []string
	ok, err := f.Fetch(t.Context(), dir, func(_ context.Context, uri, _, _ string) (bool, error) {
		got = append(got, filepath.Base(uri))
		return true, nil
	})
	if !ok || err != nil {
		t.Fatalf("Fetch = %v, %v", ok, err)
	}
	if !slices.Equal(got, []string{"a.txt", "f.txt"}) {
		t.Errorf("documents %v", got)
	}
	if len(skipped) != 4 || skipped[0] != "b.png: binary file" || skipped[1] != "c.txt: binary file" ||
		skipped[2] != "d.fifo: not a regular file or a folder" || !strings.HasPrefix(skipped[3], "e.link: ") || !strings.Contains(skipped[3], "too long") {
		t.Errorf("skipped %q", skipped)
	}
	// A named binary file is reported too.
	skipped = nil
	if _, err := f.Fetch(t.Context(), filepath.Join(dir, "b.png"), nil); err != nil || len(skipped) != 1 {
		t.Errorf("named binary file: %v, skipped %q", err, skipped)
	}
	// The callback's error ends the walk, unchanged.
	stop := errors.New("stop")
	_, err = f.Fetch(t.Context(), dir, func(context.Context, string, string, string) (bool, error) { return false, stop })
	if err != stop {
		t.Errorf("callback error: %v, want it unchanged", err)
	}
}
