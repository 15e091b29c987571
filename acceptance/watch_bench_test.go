package acceptance_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/adapters/watch"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// watchedTree writes n small markdown files (about 300 bytes, each
// different) into 100 folders under a temporary folder and returns it.
func watchedTree(b *testing.B, n int) string {
	b.Helper()
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("note-%05d.md", i))
		if i < 100 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		text := fmt.Sprintf("# Note %d\n\nThis note %d talks about topic %d and topic %d, with words that the hashing model turns into a vector. "+
			"It is short, as notes in a folder often are, and ends with its number %d.\n", i, i, i%37, i%101, i)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// newWatchedIndex opens (and, when create, creates) a JSON document index
// on disk with embed-hash (384 dimensions) and the default tokenizer.
func newWatchedIndex(b *testing.B, folder string, model core.EmbeddingsModel, create bool) *core.LocalDocumentIndex {
	b.Helper()
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: folder, Embeddings: model})
	if err != nil {
		b.Fatal(err)
	}
	if create {
		if err := ix.CreateIndex(context.Background(), core.CreateIndexConfig{Version: 1}); err != nil {
			b.Fatal(err)
		}
	}
	return ix
}

// startWatcher starts a watcher of dir on ix and returns it.
func startWatcher(b *testing.B, ix *core.LocalDocumentIndex, dir string, cfg watch.Options) *watch.FolderWatcher {
	b.Helper()
	cfg.Index, cfg.Paths = ix, []string{dir}
	cfg.OnError = func(err error, uri string) { b.Errorf("%s: %v", uri, err) }
	w, err := watch.New(&cfg)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	return w
}

const watchBenchFiles = 10_000

// BenchmarkWatcherInitialSync: Start on 10,000 files and an empty index
// (every file read, split, embedded with embed-hash and committed).
func BenchmarkWatcherInitialSync(b *testing.B) {
	dir := watchedTree(b, watchBenchFiles)
	model := &testkit.Recorder{Model: embedhash.New(nil)}
	var added atomic.Int64
	for b.Loop() {
		b.StopTimer()
		ix := newWatchedIndex(b, filepath.Join(b.TempDir(), "index"), model, true)
		added.Store(0)
		b.StartTimer()
		w := startWatcher(b, ix, dir, watch.Options{OnSync: func(string, watch.SyncAction) { added.Add(1) }})
		b.StopTimer()
		w.Stop()
		if n := added.Load(); n != watchBenchFiles {
			b.Fatalf("%d files added, want %d", n, watchBenchFiles)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(watchBenchFiles)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	b.ReportMetric(float64(model.Calls())/float64(b.N), "embed-calls/op")
}

// BenchmarkWatcherRestartUnchanged: a new process's Start on the same
// 10,000 files and the index the first sync made, nothing changed: the
// index opened, every file read and hashed, nothing embedded or written.
func BenchmarkWatcherRestartUnchanged(b *testing.B) {
	dir := watchedTree(b, watchBenchFiles)
	model := &testkit.Recorder{Model: embedhash.New(nil)}
	folder := filepath.Join(b.TempDir(), "index")
	startWatcher(b, newWatchedIndex(b, folder, model, true), dir, watch.Options{}).Stop()
	before := model.Calls()
	var events atomic.Int64
	for b.Loop() {
		ix := newWatchedIndex(b, folder, model, false) // a fresh process: the index is loaded again
		w := startWatcher(b, ix, dir, watch.Options{OnSync: func(string, watch.SyncAction) { events.Add(1) }})
		b.StopTimer()
		if w.TrackedFileCount() != watchBenchFiles {
			b.Fatalf("tracked %d", w.TrackedFileCount())
		}
		w.Stop()
		b.StartTimer()
	}
	if model.Calls() != before || events.Load() != 0 {
		b.Fatalf("restart with nothing changed: %d embeddings calls, %d events", model.Calls()-before, events.Load())
	}
	b.ReportMetric(float64(watchBenchFiles)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	b.ReportMetric(0, "embed-calls/op")
}

// BenchmarkWatcherWriteToSync: the time from writing a file to its OnSync,
// with a 50 ms debounce, in a watched folder of 1,000 files; reports the
// median and p99.
func BenchmarkWatcherWriteToSync(b *testing.B) {
	dir := watchedTree(b, 1000)
	model := &testkit.Recorder{Model: embedhash.New(nil)}
	ix := newWatchedIndex(b, filepath.Join(b.TempDir(), "index"), model, true)
	target := filepath.Join(dir, "d00", "hot.md")
	synced := make(chan struct{}, 1)
	w := startWatcher(b, ix, dir, watch.Options{
		Debounce: 50 * time.Millisecond,
		OnSync: func(uri string, _ watch.SyncAction) {
			if uri == target {
				synced <- struct{}{}
			}
		},
	})
	defer w.Stop()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		i++
		began := time.Now()
		if err := os.WriteFile(target, []byte(fmt.Sprintf("# Hot\n\nversion %d of the hot file", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		<-synced
		lat = append(lat, time.Since(began))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
}
