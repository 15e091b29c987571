package watch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/foliovec/folio/adapters/watch"
	"github.com/foliovec/folio/core"
)

// indexWrites counts the writes of index files through a storage.
type indexWrites struct {
	core.FileStorage
	n atomic.Int64
}

func (s *indexWrites) UpsertFile(ctx context.Context, p string, content []byte) error {
	if strings.HasSuffix(p, "/index.json") {
		s.n.Add(1)
	}
	return s.FileStorage.UpsertFile(ctx, p, content)
}

// envCountingWrites is newEnv over a storage that counts index writes.
func envCountingWrites(t *testing.T) (*env, *indexWrites) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := &indexWrites{FileStorage: core.NewMemoryStorage()}
	e := &env{dir: dir, model: newWordModel(), storage: core.NewMemoryStorage()}
	e.index = openIndex(t, st, "index", e.model)
	if err := e.index.CreateIndex(t.Context(), core.CreateIndexConfig{Version: 1}); err != nil {
		t.Fatal(err)
	}
	return e, st
}

// A folder renamed away takes its documents in one commit, and a
// restarted watcher catches up through bulk commits: the index is
// rewritten a handful of times, not once per file.
func TestManyChangesAreFewCommits(t *testing.T) {
	const n = 300
	e, st := envCountingWrites(t)
	var names, deleted []string
	for i := range n {
		name := fmt.Sprintf("tree/f%03d.md", i)
		e.write(t, name, "text of "+name)
		names = append(names, name)
		deleted = append(deleted, "deleted "+name)
	}
	rec := newRecorder(e.dir)
	w := start(t, e, rec, watch.Options{})
	syncs(t, rec.take())

	before := st.n.Load()
	mustRename(t, e.path("tree"), filepath.Join(t.TempDir(), "away"))
	rec.waitFor(t, deleted...)
	if writes := st.n.Load() - before; writes > 4 {
		t.Errorf("removing a renamed-away folder of %d files wrote the index %d times", n, writes)
	}
	w.Stop()

	// While stopped: n new files, then a restart catches up.
	for _, name := range names {
		e.write(t, strings.Replace(name, "tree/", "again/", 1), "again "+name)
	}
	if err := os.RemoveAll(e.path("tree")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	before = st.n.Load()
	start(t, e, rec, watch.Options{})
	if got := len(syncs(t, rec.take())); got != n {
		t.Fatalf("restart synced %d files, want %d", got, n)
	}
	if writes := st.n.Load() - before; writes > 4 {
		t.Errorf("catching up %d new files wrote the index %d times", n, writes)
	}
}
