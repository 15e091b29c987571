package manager

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/internal/coretest"
	"github.com/foliovec/folio/core/internal/testtok"
)

// managerFormats are two test codecs told apart by extension, standing for
// JSON and protobuf.
var managerFormats = map[string]core.IndexCodec{FormatJSON: testCodec{ext: ".json"}, FormatProtobuf: testCodec{ext: ".pb"}}

func newTestManager(t *testing.T, st core.FileStorage, edit func(*Config)) *Manager {
	t.Helper()
	cfg := Config{
		RootDir:      "root",
		Formats:      managerFormats,
		Embeddings:   coretest.Lengths{},
		Tokenizer:    testtok.Char{},
		ScanInterval: -1,
		IndexOptions: core.IndexOptions{Storage: st},
	}
	if edit != nil {
		edit(&cfg)
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Initialize(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Shutdown)
	return m
}

// listed is the manager's indexes as "name format doc?" strings.
func listed(m *Manager) []string {
	var out []string
	for _, mi := range m.ListIndexes() {
		out = append(out, fmt.Sprintf("%s %s %v", mi.Name, mi.Format, mi.IsDocumentIndex()))
	}
	return out
}

func TestIndexManagerCreatesAndFindsIndexesInTheRootFolder(t *testing.T) {
	ctx := t.Context()
	st := core.NewMemoryStorage()
	m := newTestManager(t, st, nil)
	if _, err := m.CreateIndex(ctx, "plain", CreateConfig{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateIndex(ctx, "docs", CreateConfig{Format: FormatProtobuf, IsDocumentIndex: true, ChunkSize: 64}); err != nil {
		t.Fatal(err)
	}
	want := []string{"plain json false", "docs protobuf true"}
	if got := listed(m); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ListIndexes = %q, want %q", got, want)
	}
	mi, err := m.RequireDocumentIndex("docs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mi.Documents.UpsertDocument(ctx, "a.txt", "hello world, a document", "", nil, nil); err != nil {
		t.Fatal(err)
	}
	// Folders that are no index, or hidden, are skipped by a new manager.
	if err := st.CreateFolder(ctx, "root/not-an-index"); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateFolder(ctx, "root/.hidden"); err != nil {
		t.Fatal(err)
	}
	if err := st.UpsertFile(ctx, "root/.hidden/index.json", []byte(`{"version":1,"metadata_config":{},"items":[]}`)); err != nil {
		t.Fatal(err)
	}
	again := newTestManager(t, st, nil)
	got := listed(again)
	if len(got) != 2 || !contains(got, "plain json false") || !contains(got, "docs protobuf true") {
		t.Fatalf("a new manager lists %q, want the two indexes", got)
	}
	docs, _ := again.RequireDocumentIndex("docs")
	list, err := docs.Documents.ListDocuments(ctx)
	if err != nil || len(list) != 1 || list[0].URI() != "a.txt" {
		t.Fatalf("documents after reopening: %v, %v", list, err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestIndexManagerRejectsNamesThatLeaveTheRoot(t *testing.T) {
	m := newTestManager(t, core.NewMemoryStorage(), nil)
	for _, name := range []string{"", "..", "../escape", "a/b", `a\b`, ".hidden", ".",
		strings.Repeat("n", 300), strings.Repeat("n", 10_000), strings.Repeat("n", MaxIndexNameBytes+1),
		"line\nbreak", "tab\there", "nul\x00", "bell\a", "~home", "\xff\xfe"} {
		if _, err := m.CreateIndex(t.Context(), name, CreateConfig{}); !errors.Is(err, core.ErrInvalidArgument) {
			t.Errorf("CreateIndex(%q) = %v, want core.ErrInvalidArgument", name, err)
		}
	}
	if _, err := m.CreateIndex(t.Context(), strings.Repeat("n", MaxIndexNameBytes), CreateConfig{}); err != nil {
		t.Errorf("a name of MaxIndexNameBytes: %v", err)
	}
	m.DeleteIndex(t.Context(), strings.Repeat("n", MaxIndexNameBytes))
	if len(m.ListIndexes()) != 0 {
		t.Fatalf("indexes after refused names: %q", listed(m))
	}
}

func TestIndexManagerErrors(t *testing.T) {
	ctx := t.Context()
	bad := Config{IndexOptions: core.IndexOptions{Storage: core.NewMemoryStorage(), ScanCodes: "int2"}, Formats: map[string]core.IndexCodec{FormatJSON: testCodec{ext: ".json"}}}
	if _, err := New(bad); !errors.Is(err, core.ErrInvalidArgument) {
		t.Errorf("New with scan codes int2: %v, want core.ErrInvalidArgument", err)
	}
	m := newTestManager(t, core.NewMemoryStorage(), nil)
	if _, err := m.CreateIndex(ctx, "x", CreateConfig{Format: "xml"}); !errors.Is(err, core.ErrInvalidArgument) {
		t.Errorf("unknown format: %v, want core.ErrInvalidArgument", err)
	}
	if _, err := m.CreateIndex(ctx, "x", CreateConfig{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateIndex(ctx, "x", CreateConfig{}); !errors.Is(err, core.ErrIndexExists) {
		t.Errorf("a second CreateIndex: %v, want core.ErrIndexExists", err)
	}
	if _, err := m.RequireIndex("missing"); !errors.Is(err, core.ErrIndexNotFound) {
		t.Errorf("RequireIndex(missing): %v, want core.ErrIndexNotFound", err)
	}
	if _, err := m.RequireDocumentIndex("x"); !errors.Is(err, core.ErrNotDocumentIndex) {
		t.Errorf("RequireDocumentIndex(plain): %v, want core.ErrNotDocumentIndex", err)
	}
	if err := m.DeleteIndex(ctx, "missing"); !errors.Is(err, core.ErrIndexNotFound) {
		t.Errorf("DeleteIndex(missing): %v, want core.ErrIndexNotFound", err)
	}
	noRoot := newTestManager(t, core.NewMemoryStorage(), func(c *Config) { c.RootDir = "" })
	if _, err := noRoot.CreateIndex(ctx, "x", CreateConfig{}); !errors.Is(err, core.ErrInvalidArgument) {
		t.Errorf("CreateIndex without a root: %v, want core.ErrInvalidArgument", err)
	}
	for _, cfg := range []Config{
		{Formats: managerFormats},
		{IndexOptions: core.IndexOptions{Storage: core.NewMemoryStorage()}},
		{IndexOptions: core.IndexOptions{Storage: core.NewMemoryStorage()}, Formats: managerFormats, DefaultFormat: "xml"},
	} {
		if _, err := New(cfg); !errors.Is(err, core.ErrInvalidArgument) {
			t.Errorf("New(%+v): %v, want core.ErrInvalidArgument", cfg, err)
		}
	}
}

func TestIndexManagerCreateOverAnExistingFolderIsIndexExists(t *testing.T) {
	ctx := t.Context()
	st := core.NewMemoryStorage()
	other := newTestManager(t, st, nil)
	if _, err := other.CreateIndex(ctx, "taken", CreateConfig{}); err != nil {
		t.Fatal(err)
	}
	m := newTestManager(t, st, nil)
	if err := m.DeleteIndex(ctx, "taken"); err != nil { // m found it at Initialize
		t.Fatal(err)
	}
	if _, err := other.CreateIndex(ctx, "again", CreateConfig{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateIndex(ctx, "again", CreateConfig{}); !errors.Is(err, core.ErrIndexExists) {
		t.Fatalf("CreateIndex over a folder another manager made: %v, want core.ErrIndexExists", err)
	}
}

func TestIndexManagerRescanAddsAndDrops(t *testing.T) {
	ctx := t.Context()
	st := core.NewMemoryStorage()
	writer := newTestManager(t, st, nil)
	m := newTestManager(t, st, nil)
	if _, err := writer.CreateIndex(ctx, "late", CreateConfig{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.GetIndex("late"); ok {
		t.Fatal("found before a rescan")
	}
	if err := m.Rescan(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.GetIndex("late"); !ok {
		t.Fatal("a rescan did not find an index another process created")
	}
	if err := writer.DeleteIndex(ctx, "late"); err != nil {
		t.Fatal(err)
	}
	if err := m.Rescan(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.GetIndex("late"); ok {
		t.Fatal("a rescan kept an index whose folder is gone")
	}
}

func TestIndexManagerPeriodicRescan(t *testing.T) {
	ctx := t.Context()
	st := core.NewMemoryStorage()
	writer := newTestManager(t, st, nil)
	m := newTestManager(t, st, func(c *Config) { c.ScanInterval = 5 * time.Millisecond })
	if _, err := writer.CreateIndex(ctx, "seen", CreateConfig{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := m.GetIndex("seen"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the periodic rescan never found the new index")
		}
		time.Sleep(time.Millisecond)
	}
	m.Shutdown()
	if len(m.ListIndexes()) != 0 {
		t.Fatal("indexes still served after Shutdown")
	}
	m.Shutdown() // idempotent
}

func TestIndexManagerSingleMode(t *testing.T) {
	ctx := t.Context()
	st := core.NewMemoryStorage()
	root := newTestManager(t, st, nil)
	if _, err := root.CreateIndex(ctx, "only", CreateConfig{Format: FormatProtobuf}); err != nil {
		t.Fatal(err)
	}
	m := newTestManager(t, st, func(c *Config) { c.IndexPath = "root/only" })
	if !m.IsSingleMode() {
		t.Fatal("not single mode")
	}
	for _, name := range []string{"only", "anything", ""} {
		mi, ok := m.GetIndex(name)
		if !ok || mi.Name != "only" || mi.Format != FormatProtobuf {
			t.Errorf("GetIndex(%q) = %+v, %v; want the one index", name, mi, ok)
		}
	}
	missing, err := New(Config{IndexPath: "nowhere", Formats: managerFormats, IndexOptions: core.IndexOptions{Storage: st}})
	if err != nil {
		t.Fatal(err)
	}
	if err := missing.Initialize(ctx); !errors.Is(err, core.ErrIndexNotFound) {
		t.Fatalf("Initialize of a missing single index: %v, want core.ErrIndexNotFound", err)
	}
}

func TestIndexManagerConcurrentUse(t *testing.T) {
	ctx := t.Context()
	st := core.NewMemoryStorage()
	m := newTestManager(t, st, func(c *Config) { c.ScanInterval = time.Millisecond })
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 10 {
				name := fmt.Sprintf("ix-%d-%d", g, i)
				mi, err := m.CreateIndex(ctx, name, CreateConfig{})
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := mi.Index.InsertItem(ctx, core.IndexItem{Vector: []float32{1, 2}}); err != nil {
					t.Error(err)
				}
				if i%2 == 0 {
					if err := m.DeleteIndex(ctx, name); err != nil {
						t.Error(err)
					}
				}
			}
		})
		wg.Go(func() {
			for range 200 {
				for _, mi := range m.ListIndexes() {
					_, _ = m.GetIndex(mi.Name)
				}
			}
		})
	}
	wg.Wait()
	if err := m.Rescan(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(m.ListIndexes()); n != 20 {
		t.Fatalf("%d indexes, want 20", n)
	}
}

// Config.VectraChunking reaches every document index served:
// Vectra's chunks with it, chunks that fill their budget without.
func TestIndexManagerVectraChunking(t *testing.T) {
	text := "abc\n---\ndef\n}\nghi"
	for _, tc := range []struct {
		vectra bool
		want   int
	}{{false, 1}, {true, 5}} {
		m := newTestManager(t, core.NewMemoryStorage(), func(c *Config) { c.VectraChunking = tc.vectra })
		mi, err := m.CreateIndex(t.Context(), "docs", CreateConfig{IsDocumentIndex: true, ChunkSize: 50})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mi.Documents.UpsertDocument(t.Context(), "a", text, "txt", nil, nil); err != nil {
			t.Fatal(err)
		}
		st, err := mi.Documents.GetCatalogStats(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if st.Chunks != tc.want {
			t.Errorf("VectraChunking %v: %d chunks, want %d", tc.vectra, st.Chunks, tc.want)
		}
	}
}

// Every method that takes a context returns that context's error unchanged
// once it has ended, and a new method with a context fails this test until
// it has a case here.
func TestEndedContextIsReturnedUnchanged(t *testing.T) {
	m := newTestManager(t, core.NewMemoryStorage(), nil)
	calls := map[string]func(context.Context) error{
		"Initialize": m.Initialize,
		"Rescan":     m.Rescan,
		"CreateIndex": func(ctx context.Context) error {
			_, err := m.CreateIndex(ctx, "new-index", CreateConfig{})
			return err
		},
		"DeleteIndex": func(ctx context.Context) error { return m.DeleteIndex(ctx, "missing") },
	}
	coretest.EndedContexts(t, reflect.TypeFor[*Manager](), calls)
}

// The manager compacts, in the background, a segmented index it serves
// once its compaction is due, and stops at Shutdown.
func TestIndexManagerCompactsInTheBackground(t *testing.T) {
	ctx := t.Context()
	m := newTestManager(t, core.NewMemoryStorage(), func(c *Config) { c.CompactInterval = 5 * time.Millisecond })
	mi, err := m.CreateIndex(ctx, "seg", CreateConfig{Format: FormatSegmented})
	if err != nil {
		t.Fatal(err)
	}
	items := make([]core.IndexItem, 12000)
	for i := range items {
		items[i] = core.IndexItem{ID: fmt.Sprint("i", i), Vector: []float32{float32(i), 1}}
	}
	if _, err := mi.Index.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	if err := mi.Index.BeginUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 4500 {
		if err := mi.Index.DeleteItem(ctx, fmt.Sprint("i", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := mi.Index.EndUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := mi.Index.GetIndexStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Storage.Tombstones == 0 {
			if st.Items != 7500 || st.Storage.Segments != 1 {
				t.Fatalf("after the compaction: %+v", st)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no background compaction: %+v", st.Storage)
		}
		time.Sleep(5 * time.Millisecond)
	}
	m.Shutdown()
}

// New's refusals are *core.Error values of "new index manager", wrapping
// ErrInvalidArgument.
func TestNewRefusalsAreCoreErrors(t *testing.T) {
	for _, cfg := range []Config{{}, {IndexOptions: core.IndexOptions{Storage: core.NewMemoryStorage()}}} {
		_, err := New(cfg)
		var e *core.Error
		if !errors.As(err, &e) || e.Op != "new index manager" || !errors.Is(err, core.ErrInvalidArgument) {
			t.Errorf("New(%+v): %#v, want an *core.Error of new index manager wrapping ErrInvalidArgument", cfg, err)
		}
	}
}
