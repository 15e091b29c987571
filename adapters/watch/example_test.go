package watch_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/foliovec/folio/adapters/watch"
	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// A watcher syncs a folder into a document index when it starts, then
// each file as it changes. (The index here is in memory; an application
// would use a folder on disk, and a real model and tokenizer: newWordModel
// and testkit.Chars are small stand-ins.)
func ExampleFolderWatcher() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "watch-example")
	defer os.RemoveAll(dir)
	dir, _ = filepath.EvalSymlinks(dir)
	_ = os.WriteFile(filepath.Join(dir, "intro.md"), []byte("# Intro\nHello."), 0o644)

	index, err := core.NewLocalDocumentIndex(core.LocalDocumentIndexConfig{
		FolderPath:   "index",
		Embeddings:   newWordModel(),
		Tokenizer:    testkit.Chars{},
		IndexOptions: core.IndexOptions{Storage: core.NewMemoryStorage(), Codec: reference.Codec{}},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := index.CreateIndex(ctx, core.CreateIndexConfig{Version: 1}); err != nil {
		log.Fatal(err)
	}

	synced := make(chan struct{}, 10)
	w, err := watch.New(&watch.Options{
		Index:      index,
		Paths:      []string{dir},
		Extensions: []string{".md"},
		Debounce:   50 * time.Millisecond,
		OnReady:    func() { fmt.Println("ready") },
		OnSync: func(uri string, action watch.SyncAction) {
			rel, _ := filepath.Rel(dir, uri)
			fmt.Println(action, rel)
			synced <- struct{}{}
		},
		OnError: func(err error, uri string) { fmt.Println("error", uri, err) },
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Start(ctx); err != nil { // syncs intro.md, then watches
		log.Fatal(err)
	}
	defer w.Stop()
	<-synced

	_ = os.WriteFile(filepath.Join(dir, "usage.md"), []byte("# Usage\nRun it."), 0o644)
	<-synced
	fmt.Println("tracked:", w.TrackedFileCount())
	// Output:
	// added intro.md
	// ready
	// added usage.md
	// tracked: 2
}
