package watch_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliovec/folio/adapters/watch"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/filetree"
)

func TestNewValidates(t *testing.T) {
	e := newEnv(t)
	for _, cfg := range []watch.Options{{Paths: []string{e.dir}}, {Index: e.index}} {
		if _, err := watch.New(&cfg); !errors.Is(err, core.ErrInvalidArgument) {
			t.Errorf("%+v: %v, want ErrInvalidArgument", cfg, err)
		}
	}
}

func TestStartSyncsThenWatches(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.md", "alpha apples")
	e.write(t, "sub/b.md", "beta bananas")
	e.write(t, "notes.txt", "not synced: wrong extension")
	rec := newRecorder(e.dir)
	w := start(t, e, rec, watch.Options{Extensions: []string{"md"}})

	// The initial sync is done when Start returns, ready called after it.
	if got, want := syncs(t, rec.take()), []string{"added a.md", "added sub/b.md"}; !slices.Equal(got, want) {
		t.Fatalf("initial sync: %v, want %v", got, want)
	}
	if rec.ready != 1 || !w.IsRunning() || w.TrackedFileCount() != 2 {
		t.Fatalf("ready %d, running %v, tracked %d", rec.ready, w.IsRunning(), w.TrackedFileCount())
	}
	if err := w.Start(t.Context()); !errors.Is(err, watch.ErrRunning) {
		t.Fatalf("second Start: %v, want ErrRunning", err)
	}

	e.write(t, "c.md", "gamma cherries")
	syncs(t, rec.waitFor(t, "added c.md"))
	e.write(t, "a.md", "alpha apricots")
	syncs(t, rec.waitFor(t, "updated a.md"))
	if got := e.text(t, "a.md"); got != "alpha apricots" {
		t.Errorf("a.md's text %q", got)
	}
	if err := os.Remove(e.path("sub/b.md")); err != nil {
		t.Fatal(err)
	}
	syncs(t, rec.waitFor(t, "deleted sub/b.md"))
	if got := e.uris(t); !slices.Equal(got, []string{"a.md", "c.md"}) {
		t.Errorf("index holds %v", got)
	}
	// A query finds the new text.
	res, err := e.index.QueryDocuments(t.Context(), "apricots", nil)
	found := false
	for _, r := range res {
		found = found || r.URI() == e.path("a.md")
	}
	if err != nil || !found {
		t.Errorf("query for the new text: %d results, a.md among them %v, err %v", len(res), found, err)
	}
	w.Stop()
	if w.IsRunning() {
		t.Error("running after Stop")
	}
}

func TestRestartCatchesChangesMadeWhileStopped(t *testing.T) {
	e := newEnv(t)
	for _, name := range []string{"keep.md", "change.md", "remove.md", "dir/gone.md"} {
		e.write(t, name, "text of "+name)
	}
	rec := newRecorder(e.dir)
	w := start(t, e, rec, watch.Options{})
	syncs(t, rec.take())
	w.Stop()

	e.write(t, "change.md", "changed while stopped")
	if err := os.Remove(e.path("remove.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(e.path("dir")); err != nil {
		t.Fatal(err)
	}
	e.write(t, "new.md", "new while stopped")

	// A new watcher (a new process) on the same index.
	e.model.Forget()
	calls := e.model.Calls()
	w2 := start(t, e, rec, watch.Options{})
	want := []string{"added new.md", "deleted dir/gone.md", "deleted remove.md", "updated change.md"}
	if got := syncs(t, rec.take()); !slices.Equal(got, want) {
		t.Fatalf("restart: %v, want %v", got, want)
	}
	// change.md and new.md are embedded (in one request or two); the
	// unchanged keep.md is not, though the first sync embedded it.
	if n := e.model.Calls() - calls; n < 1 || n > 2 {
		t.Errorf("%d embeddings calls, want 1 or 2", n)
	}
	if e.model.Embedded("text of keep.md") {
		t.Error("the unchanged keep.md was embedded again")
	}
	if w2.TrackedFileCount() != 3 {
		t.Errorf("tracked %d, want 3", w2.TrackedFileCount())
	}
	w2.Stop()

	// Nothing changed: no event, no embeddings call.
	calls = e.model.Calls()
	start(t, e, rec, watch.Options{})
	if got := rec.take(); len(got) != 0 {
		t.Errorf("restart with nothing changed: %v", got)
	}
	if n := e.model.Calls() - calls; n != 0 {
		t.Errorf("restart with nothing changed made %d embeddings calls", n)
	}
}

func TestRenames(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.md", "file to rename")
	e.write(t, "sub/x.md", "x in sub")
	e.write(t, "sub/deeper/y.md", "y in sub")
	outside := t.TempDir()
	rec := newRecorder(e.dir)
	start(t, e, rec, watch.Options{})
	syncs(t, rec.take())

	mustRename(t, e.path("a.md"), e.path("b.md"))
	rec.waitFor(t, "deleted a.md", "added b.md")

	mustRename(t, e.path("sub"), e.path("moved"))
	rec.waitFor(t, "deleted sub/x.md", "deleted sub/deeper/y.md", "added moved/x.md", "added moved/deeper/y.md")
	// The moved tree is watched under its new name, not its old.
	e.write(t, "moved/deeper/z.md", "new in moved")
	rec.waitFor(t, "added moved/deeper/z.md")

	// Moved out of the watched folder: deleted. Moved back in: added.
	mustRename(t, e.path("moved"), filepath.Join(outside, "moved"))
	rec.waitFor(t, "deleted moved/x.md", "deleted moved/deeper/y.md", "deleted moved/deeper/z.md")
	mustRename(t, filepath.Join(outside, "moved"), e.path("back"))
	rec.waitFor(t, "added back/x.md", "added back/deeper/y.md", "added back/deeper/z.md")
	e.write(t, "back/deeper/w.md", "watched after moving in")
	rec.waitFor(t, "added back/deeper/w.md")

	if got := e.uris(t); !slices.Equal(got, []string{"b.md", "back/deeper/w.md", "back/deeper/y.md", "back/deeper/z.md", "back/x.md"}) {
		t.Errorf("index holds %v", got)
	}
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func TestDeletedDirectory(t *testing.T) {
	e := newEnv(t)
	e.write(t, "tree/a.md", "a")
	e.write(t, "tree/b/c.md", "c")
	e.write(t, "other.md", "stays")
	rec := newRecorder(e.dir)
	start(t, e, rec, watch.Options{})
	syncs(t, rec.take())
	if err := os.RemoveAll(e.path("tree")); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "deleted tree/a.md", "deleted tree/b/c.md")
	if got := e.uris(t); !slices.Equal(got, []string{"other.md"}) {
		t.Errorf("index holds %v", got)
	}
}

func TestNewDirectoryTreeIsWatched(t *testing.T) {
	e := newEnv(t)
	rec := newRecorder(e.dir)
	start(t, e, rec, watch.Options{})
	// Created fast, deeper than the watches can follow one by one: the
	// sync of the new folder finds what is already there.
	e.write(t, "new/a/b/c/deep.md", "deep")
	e.write(t, "new/top.md", "top")
	rec.waitFor(t, "added new/a/b/c/deep.md", "added new/top.md")
	e.write(t, "new/a/b/later.md", "later")
	rec.waitFor(t, "added new/a/b/later.md")
}

func TestRapidWritesCoalesce(t *testing.T) {
	e := newEnv(t)
	e.write(t, "hot.md", "version 0")
	rec := newRecorder(e.dir)
	const debounce = 50 * time.Millisecond
	start(t, e, rec, watch.Options{Debounce: debounce})
	syncs(t, rec.take())

	// A pause of more than half the debounce between two writes (the
	// machine may stall the writing loop) may let a sync through: count
	// them, so the bound holds on a loaded machine.
	began := time.Now()
	last, pauses := began, 0
	for i := 1; i <= 1000; i++ {
		e.write(t, "hot.md", fmt.Sprintf("version %d", i))
		now := time.Now()
		if now.Sub(last) > debounce/2 {
			pauses++
		}
		last = now
	}
	burst := time.Since(began)
	// Wait until the last version is stored, then a little longer for a
	// stray sync.
	deadline := time.Now().Add(waitTimeout)
	for e.text(t, "hot.md") != "version 1000" {
		if time.Now().After(deadline) {
			t.Fatalf("the last write never reached the index; it holds %q", e.text(t, "hot.md"))
		}
		<-time.After(debounce)
	}
	<-time.After(4 * debounce)
	upserts := len(syncs(t, rec.take()))
	// A path changing all along is synced at least every 4 debounce
	// windows, and once after it settles.
	if limit := int(burst/(4*debounce)) + 2 + pauses; upserts < 1 || upserts > limit {
		t.Errorf("1000 writes in %v (%d pauses) made %d upserts, want 1 to %d", burst, pauses, upserts, limit)
	}
	t.Logf("1000 writes in %v (%d pauses): %d upserts", burst, pauses, upserts)
}

// The reproduction of a walk that followed a link to /etc: a watched tree
// holding links to a folder and a file outside it syncs nothing from
// there, at the start or when a link appears later, and reports each link
// as skipped with its target.
func TestLinksOutOfTheTreeAreSkipped(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a/doc.md", "in a")
	if err := os.Symlink(e.path("a"), e.path("a/loop")); err != nil { // a cycle
		t.Fatal(err)
	}
	if err := os.Symlink(e.dir, e.path("a/root")); err != nil { // a cycle through the root
		t.Fatal(err)
	}
	elsewhere := testkit.RealTempDir(t)
	if err := os.WriteFile(filepath.Join(elsewhere, "secret.md"), []byte("far away"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, e.path("linked")); err != nil {
		t.Fatal(err)
	}
	rec := newRecorder(e.dir)
	start(t, e, rec, watch.Options{})
	if got, want := syncs(t, rec.take()), []string{"added a/doc.md"}; !slices.Equal(got, want) {
		t.Fatalf("initial sync %v, want %v", got, want)
	}
	var le *filetree.LinkError
	if err := rec.skipped("linked"); !errors.As(err, &le) || le.Target != elsewhere {
		t.Errorf("linked: skipped for %v, want a LinkError to %s", err, elsewhere)
	}
	// A link to a file outside, made while watching.
	if err := os.Symlink(filepath.Join(elsewhere, "secret.md"), e.path("a/late.md")); err != nil {
		t.Fatal(err)
	}
	// A link to a folder outside, made while watching: skipped, and its
	// folder not watched.
	if err := os.Symlink(elsewhere, e.path("a/late-folder")); err != nil {
		t.Fatal(err)
	}
	e.write(t, "a/after.md", "after")
	rec.waitFor(t, "added a/after.md")
	if err := os.WriteFile(filepath.Join(elsewhere, "written-later.md"), []byte("far away"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.write(t, "a/after2.md", "after")
	rec.waitFor(t, "added a/after2.md")
	if err := rec.skipped("a/late.md"); !errors.Is(err, filetree.ErrOutsideTree) {
		t.Errorf("a/late.md: skipped for %v", err)
	}
	if err := rec.skipped("a/late-folder"); !errors.Is(err, filetree.ErrOutsideTree) {
		t.Errorf("a/late-folder: skipped for %v", err)
	}
	if got := e.uris(t); !slices.Equal(got, []string{"a/after.md", "a/after2.md", "a/doc.md"}) {
		t.Errorf("index holds %v, want nothing from outside", got)
	}
}

// With FollowLinks, what links outside lead to is synced under its real
// path and watched there; when the link goes, the next sync deletes it.
func TestFollowLinksSyncsUnderRealPaths(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a/doc.md", "in a")
	elsewhere := testkit.RealTempDir(t)
	if err := os.WriteFile(filepath.Join(elsewhere, "far.md"), []byte("far away"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, e.path("linked")); err != nil {
		t.Fatal(err)
	}
	rec := newRecorder(e.dir)
	w := start(t, e, rec, watch.Options{FollowLinks: true})
	far, near := filepath.Join(elsewhere, "far.md"), filepath.Join(elsewhere, "near.md")
	want := []string{"added a/doc.md", "added " + far}
	slices.Sort(want)
	if got := syncs(t, rec.take()); !slices.Equal(got, want) {
		t.Fatalf("initial sync %v, want %v", got, want)
	}
	if err := os.WriteFile(near, []byte("written through the link"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "added "+near)
	if err := os.Remove(e.path("linked")); err != nil {
		t.Fatal(err)
	}
	w.Stop()
	rec.take()
	if _, err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, want := syncs(t, rec.take()), []string{"deleted " + far, "deleted " + near}; !slices.Equal(got, want) {
		t.Errorf("after the link went: %v, want %v", got, want)
	}
}

// A file reached through a linked folder and by its real path is one
// document, under the real path, whichever way the paths are named.
func TestAFileReachedTwiceIsOneDocument(t *testing.T) {
	e := newEnv(t)
	e.write(t, "real/x.md", "x")
	if err := os.MkdirAll(e.path("tree"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../real", e.path("tree/link")); err != nil {
		t.Fatal(err)
	}
	rec := newRecorder(e.dir)
	start(t, e, rec, watch.Options{Paths: []string{e.path("tree"), e.path("real")}})
	if got, want := syncs(t, rec.take()), []string{"added real/x.md"}; !slices.Equal(got, want) {
		t.Fatalf("initial sync %v, want %v", got, want)
	}
	if err := rec.skipped("tree/link"); err != nil {
		t.Errorf("a link into another watched path was skipped: %v", err)
	}
}

// A huge file is skipped unread, and reported.
func TestHugeFilesSkipped(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.md", "small")
	f, err := os.Create(e.path("huge.log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	e.write(t, "medium.md", strings.Repeat("x", 100))
	rec := newRecorder(e.dir)
	start(t, e, rec, watch.Options{MaxFileBytes: 50})
	if got, want := syncs(t, rec.take()), []string{"added a.md"}; !slices.Equal(got, want) {
		t.Fatalf("initial sync %v, want %v", got, want)
	}
	for _, name := range []string{"huge.log", "medium.md"} {
		if err := rec.skipped(name); !errors.Is(err, filetree.ErrTooLarge) {
			t.Errorf("%s: skipped for %v, want ErrTooLarge", name, err)
		}
	}
}

func TestExtensionFilterIgnoresCase(t *testing.T) {
	e := newEnv(t)
	e.write(t, "A.MD", "upper")
	e.write(t, "b.Txt", "mixed")
	e.write(t, "c.go", "package c")
	e.write(t, ".md", "a dotfile has no extension")
	rec := newRecorder(e.dir)
	start(t, e, rec, watch.Options{Extensions: []string{"md", ".TXT"}})
	if got, want := syncs(t, rec.take()), []string{"added A.MD", "added b.Txt"}; !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}

func TestBinaryFilesSkipped(t *testing.T) {
	e := newEnv(t)
	e.write(t, "text.md", "text")
	e.write(t, "logo.png", "\x89PNG\r\n\x1a\n")
	e.write(t, "blob", "ELF\x00\x01\x02")
	e.write(t, "latin1.txt", "caf\xe9")
	rec := newRecorder(e.dir)
	start(t, e, rec, watch.Options{})
	if got, want := syncs(t, rec.take()), []string{"added latin1.txt", "added text.md"}; !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
	if got := e.text(t, "latin1.txt"); got != "caf\uFFFD" {
		t.Errorf("invalid UTF-8 stored as %q", got)
	}
}

func TestSingleFilePath(t *testing.T) {
	e := newEnv(t)
	e.write(t, "only.md", "one")
	e.write(t, "sibling.md", "not watched")
	rec := newRecorder(e.dir)
	start(t, e, rec, watch.Options{Paths: []string{e.path("only.md")}})
	if got := syncs(t, rec.take()); !slices.Equal(got, []string{"added only.md"}) {
		t.Fatalf("%v", got)
	}
	e.write(t, "sibling.md", "changed sibling")
	e.write(t, "only.md", "two")
	rec.waitFor(t, "updated only.md")
	if got := e.uris(t); !slices.Equal(got, []string{"only.md"}) {
		t.Errorf("index holds %v", got)
	}
}

func TestIndexFolderInsideWatchedFolder(t *testing.T) {
	e := newEnv(t)
	// The index's folder is inside the watched one: files written there
	// (as an index on disk writes them) are never synced, so the watcher
	// never feeds on its own writes.
	// The in-memory storage takes relative paths only: run in the watched
	// folder, so that the index folder "index" is e.dir/index.
	t.Chdir(e.dir)
	e.storage = core.NewMemoryStorage()
	e.index = openIndex(t, e.storage, "index", e.model)
	if err := e.index.CreateIndex(t.Context(), core.CreateIndexConfig{Version: 1}); err != nil {
		t.Fatal(err)
	}
	e.write(t, "index/index.json", `{"version":1}`)
	e.write(t, "doc.md", "a document")
	rec := newRecorder(e.dir)
	start(t, e, rec, watch.Options{})
	if got := syncs(t, rec.take()); !slices.Equal(got, []string{"added doc.md"}) {
		t.Fatalf("%v", got)
	}
	e.write(t, "index/catalog.json", `{}`)
	e.write(t, "index/sub/x.txt", "text")
	e.write(t, "doc2.md", "another")
	rec.waitFor(t, "added doc2.md")
	<-time.After(200 * time.Millisecond) // time for a wrong sync to show
	if got := rec.take(); len(got) != 0 {
		t.Errorf("events from the index folder: %v", got)
	}
}

func TestSyncWithoutStart(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.md", "a")
	e.write(t, "b.md", "b")
	rec := newRecorder(e.dir)
	w, err := watch.New(rec.config(watch.Options{Index: e.index, Paths: []string{e.dir}}))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := w.Sync(t.Context()); n != 2 || err != nil {
		t.Fatalf("Sync = %d, %v", n, err)
	}
	os.Remove(e.path("a.md"))
	if n, err := w.Sync(t.Context()); n != 1 || err != nil || w.TrackedFileCount() != 1 {
		t.Fatalf("second Sync = %d, %v (tracked %d)", n, err, w.TrackedFileCount())
	}
	if w.IsRunning() {
		t.Error("Sync started the watcher")
	}
}

func TestStartOnMissingIndexFails(t *testing.T) {
	e := newEnv(t)
	ix := openIndex(t, e.storage, "never-created", e.model)
	w, err := watch.New(&watch.Options{Index: ix, Paths: []string{e.dir}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(t.Context()); !errors.Is(err, core.ErrIndexNotFound) {
		t.Fatalf("Start = %v, want ErrIndexNotFound", err)
	}
	if w.IsRunning() {
		t.Error("running after a failed Start")
	}
}

func TestStopWaitsAndNothingIsWrittenAfter(t *testing.T) {
	e := newEnv(t)
	rec := newRecorder(e.dir)
	var stopped atomic.Bool
	var late atomic.Int64
	cfg := rec.config(watch.Options{Index: e.index, Paths: []string{e.dir}, Debounce: 20 * time.Millisecond})
	onSync := cfg.OnSync
	cfg.OnSync = func(uri string, action watch.SyncAction) {
		if stopped.Load() {
			late.Add(1)
		}
		onSync(uri, action)
	}
	w, err := watch.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		e.write(t, fmt.Sprintf("batch/f%03d.md", i), strings.Repeat(fmt.Sprintf("file %d ", i), 50))
	}
	rec.waitFor(t, "added batch/f000.md") // a sync is under way
	w.Stop()
	stopped.Store(true)
	indexFile := e.index.FolderPath() + "/index.json"
	before, err := e.storage.ReadFile(t.Context(), indexFile)
	if err != nil {
		t.Fatal(err)
	}
	<-time.After(300 * time.Millisecond)
	after, err := e.storage.ReadFile(t.Context(), indexFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) || late.Load() != 0 {
		t.Errorf("written after Stop: index changed %v, %d late events", !bytes.Equal(before, after), late.Load())
	}
	// What Stop left undone, the next Start finishes.
	start(t, e, rec, watch.Options{})
	if n := len(e.uris(t)); n != 300 {
		t.Errorf("after restart the index holds %d documents, want 300", n)
	}
}

func TestQueriesDuringWrites(t *testing.T) {
	e := newEnv(t)
	rec := newRecorder(e.dir)
	start(t, e, rec, watch.Options{})
	var wg sync.WaitGroup
	done := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := e.index.QueryDocuments(t.Context(), "file words", nil); err != nil {
					t.Errorf("query: %v", err)
					return
				}
			}
		})
	}
	var want []string
	for i := range 50 {
		name := fmt.Sprintf("q/%02d.md", i)
		e.write(t, name, fmt.Sprintf("file words number %d", i))
		want = append(want, "added "+name)
	}
	rec.waitFor(t, want...)
	close(done)
	wg.Wait()
}
