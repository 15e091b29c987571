package acceptance_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	storagemem "github.com/foliovec/folio/adapters/storage-mem"
	"github.com/foliovec/folio/core"
)

// Two LocalIndex values over one storagemem storage behave as two
// processes on one folder: these tests pin the rules of sharing a folder
// (rebase, later writer wins, freshness) without starting processes.

func twoIndexes(t *testing.T, storage core.FileStorage, every time.Duration) (a, b *core.LocalIndex) {
	t.Helper()
	open := func() *core.LocalIndex {
		ix, err := folio.NewLocalIndex("shared", &folio.IndexOptions{Storage: storage, FreshnessInterval: every})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	a, b = open(), open()
	if err := a.CreateIndex(t.Context(), core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"by"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.GetIndexStats(t.Context()); err != nil {
		t.Fatal(err)
	}
	return a, b
}

func put(t *testing.T, ix *core.LocalIndex, id, by string) {
	t.Helper()
	if _, err := ix.UpsertItem(t.Context(), core.IndexItem{ID: id, Vector: []float32{1, 2, 3}, Metadata: core.Metadata{"by": by, "note": "side-car " + by}}); err != nil {
		t.Fatal(err)
	}
}

// itemsOf reads the folder as a new process would: id → "by".
func itemsOf(t *testing.T, storage core.FileStorage) map[string]string {
	t.Helper()
	ix, err := folio.NewLocalIndex("shared", &folio.IndexOptions{Storage: storage})
	if err != nil {
		t.Fatal(err)
	}
	items, err := ix.ListItems(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, it := range items {
		out[it.ID], _ = it.Metadata["by"].(string)
	}
	// Every side-car an item names is there.
	if _, err := ix.QueryItems(t.Context(), []float32{1, 2, 3}, "", len(items)+1, nil, false); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSharedFolderWritesRebase(t *testing.T) {
	storage := storagemem.New()
	a, b := twoIndexes(t, storage, time.Hour)
	put(t, a, "a1", "a")
	put(t, b, "b1", "b") // b's snapshot predates a1: its commit rebases
	put(t, a, "shared", "a")
	put(t, b, "shared", "b") // later writer wins
	got := itemsOf(t, storage)
	want := map[string]string{"a1": "a", "b1": "b", "shared": "b"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("folder holds %v, want %v", got, want)
	}
	// An insert of an id this process sees is refused, as always.
	if _, err := a.InsertItem(t.Context(), core.IndexItem{ID: "a1", Vector: []float32{3, 2, 1}}); !errors.Is(err, core.ErrItemExists) {
		t.Fatalf("insert of an id in view: %v, want ErrItemExists", err)
	}
	// An insert of an id another process added since this one looked is
	// the later write: it replaces the item instead of failing.
	put(t, b, "fresh", "b")
	if _, err := a.InsertItem(t.Context(), core.IndexItem{ID: "fresh", Vector: []float32{3, 2, 1}, Metadata: core.Metadata{"by": "a"}}); err != nil {
		t.Fatalf("insert over another process's new item: %v", err)
	}
	if err := b.DeleteItem(t.Context(), "a1"); err != nil {
		t.Fatal(err)
	}
	got = itemsOf(t, storage)
	want = map[string]string{"b1": "b", "fresh": "a", "shared": "b"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("folder holds %v, want %v", got, want)
	}
}

func TestSharedFolderBatchAppliesOnTopOfOtherCommits(t *testing.T) {
	storage := storagemem.New()
	a, b := twoIndexes(t, storage, time.Hour)
	put(t, a, "x", "a")
	if err := a.BeginUpdate(t.Context()); err != nil {
		t.Fatal(err)
	}
	put(t, a, "in-batch", "a")
	if err := a.DeleteItem(t.Context(), "x"); err != nil {
		t.Fatal(err)
	}
	// b commits while a's batch is open: a's batch holds no lock.
	put(t, b, "from-b", "b")
	put(t, b, "x", "b") // b replaces x; a's batch deletes it later
	if err := a.EndUpdate(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := itemsOf(t, storage)
	want := map[string]string{"from-b": "b", "in-batch": "a"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("folder holds %v, want %v", got, want)
	}
}

func TestSharedFolderReadersSeeOtherCommits(t *testing.T) {
	storage := storagemem.New()
	a, b := twoIndexes(t, storage, 20*time.Millisecond)
	count := func(ix *core.LocalIndex) int {
		st, err := ix.GetIndexStats(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return st.Items
	}
	put(t, a, "a1", "a")
	deadline := time.Now().Add(5 * time.Second)
	for count(b) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("b never saw a's commit")
		}
		time.Sleep(time.Millisecond)
	}
	// Checks off: b keeps the snapshot it has.
	c, err := folio.NewLocalIndex("shared", &folio.IndexOptions{Storage: storage, FreshnessInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if count(c) != 1 {
		t.Fatal("c does not open the index")
	}
	put(t, a, "a2", "a")
	time.Sleep(50 * time.Millisecond)
	if n := count(c); n != 1 {
		t.Fatalf("with FreshnessInterval < 0 a reader reloaded: %d items", n)
	}
	if n := count(b); n != 2 {
		t.Fatalf("b sees %d items 50 ms after a's commit, want 2", n)
	}
}

// A document replaced in two processes is one document: the later
// writer's, with no chunk of the other version left.
func TestSharedFolderDocumentsLaterWriterWins(t *testing.T) {
	storage := storagemem.New()
	open := func() *core.LocalDocumentIndex {
		ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: "docs", Embeddings: embedhash.New(&embedhash.Options{Dimensions: 32}), ChunkingConfig: killChunking(), IndexOptions: core.IndexOptions{Storage: storage, FreshnessInterval: time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	a, b := open(), open()
	ctx := t.Context()
	if err := a.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.GetCatalogStats(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.UpsertDocument(ctx, "same.md", mpDocText(1, 1), "", nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.UpsertDocument(ctx, "same.md", mpDocText(2, 2), "", nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.UpsertDocument(ctx, "other.md", mpDocText(3, 3), "", nil, nil); err != nil {
		t.Fatal(err)
	}
	fresh := open()
	docs, err := fresh.ListDocuments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 {
		t.Fatalf("%d documents, want 2", len(docs))
	}
	for _, d := range docs {
		text, err := d.LoadText(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"same.md": mpDocText(2, 2), "other.md": mpDocText(3, 3)}[d.URI()]
		if text != want {
			t.Fatalf("%s holds %.40q…, want %.40q…", d.URI(), text, want)
		}
	}
	st, err := fresh.GetCatalogStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	chunks := 0
	for _, d := range docs {
		chunks += len(d.Chunks)
	}
	if st.Chunks != chunks {
		t.Fatalf("the index holds %d chunks, the documents %d: chunks of a replaced version are left", st.Chunks, chunks)
	}
}

// hiddenCapabilities is a storage without FolderLocker and FileVersioner.
type hiddenCapabilities struct{ core.FileStorage }

// Without the capabilities, Vectra's behaviour is kept: the later commit
// drops the other's changes. This pins that the capabilities are what
// make sharing safe.
func TestSharedFolderWithoutCapabilitiesLosesUpdates(t *testing.T) {
	storage := hiddenCapabilities{storagemem.New()}
	a, b := twoIndexes(t, storage, time.Hour)
	put(t, a, "a1", "a")
	put(t, b, "b1", "b")
	got := itemsOf(t, storage)
	if _, ok := got["a1"]; ok {
		t.Fatalf("without the capabilities the folder holds %v: a1 should have been lost", got)
	}
}
