package watch_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliovec/folio/adapters/watch"
	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// waitTimeout bounds every wait for a callback: generous, since the
// machine may be slow; a passing test never waits it out.
const waitTimeout = 20 * time.Second

// newWordModel is the tests' embeddings model: words hashed into 16
// dimensions, recorded.
func newWordModel() *testkit.Recorder {
	return &testkit.Recorder{Model: testkit.Words{Dims: 16, Tokens: 2000}}
}

// env is a watched folder and a document index in a folder of its own.
type env struct {
	dir     string // the watched folder, its symbolic links resolved
	index   *core.LocalDocumentIndex
	model   *testkit.Recorder
	storage *core.MemoryStorage // the index's, in memory
}

func newEnv(t testing.TB) *env {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{dir: dir, model: newWordModel(), storage: core.NewMemoryStorage()}
	e.index = openIndex(t, e.storage, "index", e.model)
	if err := e.index.CreateIndex(t.Context(), core.CreateIndexConfig{Version: 1}); err != nil {
		t.Fatal(err)
	}
	return e
}

func openIndex(t testing.TB, storage core.FileStorage, folder string, model core.EmbeddingsModel) *core.LocalDocumentIndex {
	t.Helper()
	ix, err := core.NewLocalDocumentIndex(core.LocalDocumentIndexConfig{
		FolderPath:   folder,
		Embeddings:   model,
		Tokenizer:    testkit.Chars{},
		IndexOptions: core.IndexOptions{Storage: storage, Codec: reference.Codec{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// path is name below the watched folder.
func (e *env) path(name string) string { return filepath.Join(e.dir, filepath.FromSlash(name)) }

func (e *env) write(t testing.TB, name, text string) {
	t.Helper()
	p := e.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// uris is the index's document URIs, relative to the watched folder.
func (e *env) uris(t testing.TB) []string {
	t.Helper()
	all, err := e.index.DocumentURIs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(all))
	for _, u := range all {
		rel, err := filepath.Rel(e.dir, u)
		if err != nil || strings.HasPrefix(rel, "..") {
			out = append(out, u)
			continue
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// text is the stored text of the document at name.
func (e *env) text(t testing.TB, name string) string {
	t.Helper()
	id, ok, err := e.index.GetDocumentID(t.Context(), e.path(name))
	if err != nil || !ok {
		return ""
	}
	docs, err := e.index.ListDocuments(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.ID() == id {
			text, err := d.LoadText(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			return text
		}
	}
	return ""
}

// event is one OnSync or OnError call.
type event struct {
	uri    string
	action watch.SyncAction // "" for an error
	err    error
}

func (ev event) String() string {
	if ev.err != nil {
		return fmt.Sprintf("error %s: %v", ev.uri, ev.err)
	}
	return fmt.Sprintf("%s %s", ev.action, ev.uri)
}

// recorder records a watcher's callbacks.
type recorder struct {
	mu     sync.Mutex
	events []event
	ready  int
	notify chan struct{} // closed and replaced at every callback
	dir    string        // URIs are recorded relative to it
	skips  map[string]error
}

func newRecorder(dir string) *recorder { return &recorder{notify: make(chan struct{}), dir: dir} }

func (r *recorder) rel(uri string) string {
	if rel, err := filepath.Rel(r.dir, uri); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return uri
}

func (r *recorder) add(ev event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev.uri = r.rel(ev.uri)
	r.events = append(r.events, ev)
	close(r.notify)
	r.notify = make(chan struct{})
}

// config returns cfg with the recorder's callbacks.
func (r *recorder) config(cfg watch.Options) *watch.Options {
	cfg.OnSync = func(uri string, action watch.SyncAction) { r.add(event{uri: uri, action: action}) }
	cfg.OnError = func(err error, uri string) { r.add(event{uri: uri, err: err}) }
	cfg.OnSkip = func(path string, reason error) {
		r.mu.Lock()
		if r.skips == nil {
			r.skips = map[string]error{}
		}
		r.skips[r.rel(path)] = reason
		r.mu.Unlock()
		r.add(event{uri: path, action: "skipped"})
	}
	cfg.OnReady = func() {
		r.mu.Lock()
		r.ready++
		r.mu.Unlock()
	}
	return &cfg
}

// take returns the events recorded so far and forgets them.
func (r *recorder) take() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

// syncs are the sync events among evs, as "action uri", sorted; errors
// fail the test.
func syncs(t testing.TB, evs []event) []string {
	t.Helper()
	var out []string
	for _, ev := range evs {
		if ev.err != nil {
			t.Errorf("unexpected %v", ev)
			continue
		}
		if ev.action != "skipped" {
			out = append(out, ev.String())
		}
	}
	slices.Sort(out)
	return out
}

// waitFor waits until every event of want ("action uri") has been recorded
// since the last take, and returns all recorded, forgetting them.
func (r *recorder) waitFor(t testing.TB, want ...string) []event {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		r.mu.Lock()
		have := map[string]bool{}
		for _, ev := range r.events {
			have[ev.String()] = true
		}
		missing := 0
		for _, w := range want {
			if !have[w] {
				missing++
			}
		}
		ch := r.notify
		r.mu.Unlock()
		if missing == 0 {
			return r.take()
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %v; recorded %v", want, r.take())
		}
	}
}

// start starts a watcher on e's folder with cfg's other fields, stopped
// when the test ends.
func start(t testing.TB, e *env, rec *recorder, cfg watch.Options) *watch.FolderWatcher {
	t.Helper()
	cfg.Index = e.index
	if cfg.Paths == nil {
		cfg.Paths = []string{e.dir}
	}
	if cfg.Debounce == 0 {
		cfg.Debounce = 50 * time.Millisecond
	}
	w, err := watch.New(rec.config(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

// skipped returns why path (relative to the recorder's folder, or
// absolute outside it) was skipped, or nil.
func (r *recorder) skipped(path string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skips[path]
}
