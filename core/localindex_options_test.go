package core

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"reflect"
	"strings"
	"testing"
)

// A filter on a key that is not indexed matches nothing, as in Vectra; with
// a logger it is logged as a warning, and with StrictFilters it is
// ErrInvalidFilter. Indexed keys, and any key of an index without indexed
// keys, are never warned about.
func TestFilterOnKeysThatAreNotIndexed(t *testing.T) {
	ctx := context.Background()
	st := newMemTestStorage()
	var logs bytes.Buffer
	open := func(strict bool) *LocalIndex {
		ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{},
			Logger: slog.New(slog.NewTextHandler(&logs, nil)), StrictFilters: strict})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	ix := open(false)
	if err := ix.CreateIndex(ctx, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"category"}}}); err != nil {
		t.Fatal(err)
	}
	mustInsert(t, ix, "a", []float32{1, 0}, Metadata{"category": "news", "year": 2024})

	res, err := ix.QueryItems(ctx, []float32{1, 0}, "", 5, Filter{"year": 2024}, false)
	if err != nil || len(res) != 0 {
		t.Fatalf("lenient: %d results, %v; want none, nil", len(res), err)
	}
	if !strings.Contains(logs.String(), "not indexed") || !strings.Contains(logs.String(), "year") {
		t.Errorf("no warning naming the key was logged: %q", logs.String())
	}
	logs.Reset()
	if _, err := ix.ListItemsByMetadata(ctx, Filter{"category": "news"}); err != nil || logs.Len() > 0 {
		t.Errorf("a filter on an indexed key: err %v, logged %q", err, logs.String())
	}

	strict := open(true)
	for name, call := range map[string]func() error{
		"QueryItems": func() error {
			_, err := strict.QueryItems(ctx, []float32{1, 0}, "", 5, Filter{"$or": []any{Filter{"category": "x"}, Filter{"year": 1}}}, false)
			return err
		},
		"ListItemsByMetadata": func() error { _, err := strict.ListItemsByMetadata(ctx, Filter{"year": 2024}); return err },
	} {
		if err := call(); !errors.Is(err, ErrInvalidFilter) || !strings.Contains(err.Error(), "year") {
			t.Errorf("strict %s: err = %v, want ErrInvalidFilter naming year", name, err)
		}
	}
	if res, err := strict.QueryItems(ctx, []float32{1, 0}, "", 5, Filter{"category": "news"}, false); err != nil || len(res) != 1 {
		t.Errorf("strict, indexed key: %d results, %v", len(res), err)
	}

	plain, _ := newCreatedIndex(t, CreateIndexConfig{})
	mustInsert(t, plain, "a", []float32{1, 0}, Metadata{"year": 2024})
	plain.strictFilters = true
	if res, err := plain.ListItemsByMetadata(ctx, Filter{"year": 2024}); err != nil || len(res) != 1 {
		t.Errorf("no indexed keys, every key inline: %d results, %v", len(res), err)
	}
}

// A document index's chunk keys are always inline: filtering on them is
// never refused, whatever is indexed.
func TestStrictFiltersAcceptChunkKeys(t *testing.T) {
	env := newDocTestEnv(t, func(c *LocalDocumentIndexConfig) { c.StrictFilters = true })
	ctx := context.Background()
	if err := env.ix.CreateIndex(ctx, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"lang"}}}); err != nil {
		t.Fatal(err)
	}
	doc := mustUpsertDoc(t, env.ix, "a.md", "some text to index", "", Metadata{"lang": "en", "topic": "x"})
	items, err := env.ix.ListItemsByMetadata(ctx, Filter{"documentId": doc.ID(), "lang": "en"})
	if err != nil || len(items) == 0 {
		t.Fatalf("filter on documentId and lang: %d items, %v", len(items), err)
	}
	if _, err := env.ix.ListItemsByMetadata(ctx, Filter{"topic": "x"}); !errors.Is(err, ErrInvalidFilter) {
		t.Errorf("filter on the non-indexed topic: %v, want ErrInvalidFilter", err)
	}
}

// CreateIndex with OpenIfExists creates a missing index and leaves an
// existing one as it is; with DeleteIfExists too it is ErrInvalidArgument.
func TestCreateIndexOpenIfExists(t *testing.T) {
	ctx := context.Background()
	ix, st := newTestIndex(t)
	cfg := CreateIndexConfig{OpenIfExists: true, MetadataConfig: MetadataConfig{Indexed: []string{"a"}}}
	if err := ix.CreateIndex(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	mustInsert(t, ix, "x", []float32{1}, Metadata{"a": 1})
	again := reopen(t, st)
	if err := again.CreateIndex(ctx, CreateIndexConfig{OpenIfExists: true, MetadataConfig: MetadataConfig{Indexed: []string{"b"}}}); err != nil {
		t.Fatalf("OpenIfExists on an existing index: %v", err)
	}
	stats, err := again.GetIndexStats(ctx)
	if err != nil || stats.Items != 1 || stats.MetadataConfig.Indexed[0] != "a" {
		t.Fatalf("after OpenIfExists: %+v, %v; want the existing index untouched", stats, err)
	}
	err = again.CreateIndex(ctx, CreateIndexConfig{OpenIfExists: true, DeleteIfExists: true})
	if !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("both options: %v, want ErrInvalidArgument", err)
	}

	env := newDocTestEnv(t, nil)
	for range 2 {
		if err := env.ix.CreateIndex(ctx, CreateIndexConfig{OpenIfExists: true}); err != nil {
			t.Fatalf("document index, OpenIfExists: %v", err)
		}
		mustUpsertDoc(t, env.ix, "a.md", "text", "", nil)
	}
	if st, err := env.ix.GetCatalogStats(ctx); err != nil || st.Documents != 1 {
		t.Fatalf("document index after two open-or-create calls: %+v, %v", st, err)
	}
}

// Error messages name what the caller gave: an item inserted without an id
// is not named by the uuid generated for it, and a document error names the
// URI, not the folder.
func TestErrorTextsNameTheCallersKey(t *testing.T) {
	ctx := context.Background()
	ix, _ := newCreatedIndex(t, CreateIndexConfig{})
	_, err := ix.InsertItem(ctx, IndexItem{Vector: []float32{float32Inf()}})
	if err == nil || strings.Count(err.Error(), "-4") > 0 || !strings.Contains(err.Error(), "insert item (new id)") {
		t.Errorf("insert without id: %v", err)
	}
	_, err = ix.InsertItem(ctx, IndexItem{ID: "mine", Vector: nil})
	if err == nil || !strings.Contains(err.Error(), `insert item "mine"`) {
		t.Errorf("insert with id: %v", err)
	}
	_, err = ix.BatchInsertItems(ctx, []IndexItem{{Vector: []float32{1}}, {Vector: nil}})
	if err == nil || !strings.Contains(err.Error(), "item 1 (new id)") {
		t.Errorf("batch insert: %v", err)
	}

	env := newDocTestEnv(t, nil) // not created
	_, err = env.ix.UpsertDocument(ctx, "notes/a.md", "text", "", nil, nil)
	if !errors.Is(err, ErrIndexNotFound) || !strings.Contains(err.Error(), `upsert document "notes/a.md"`) {
		t.Errorf("upsert into a missing index: %v", err)
	}
	_, err = env.ix.QueryDocuments(ctx, "what is it", nil)
	if !errors.Is(err, ErrIndexNotFound) || !strings.Contains(err.Error(), `query documents "what is it"`) {
		t.Errorf("query a missing index: %v", err)
	}
}

// A document index opened on a folder holding a plain index with items
// refuses to work there (ErrNotDocumentIndex) and writes nothing; an empty
// index without a catalog gets one, as in Vectra.
func TestDocumentIndexOnAPlainIndex(t *testing.T) {
	ctx := context.Background()
	env := newDocTestEnv(t, nil)
	plain, err := NewLocalIndex(docTestFolder, IndexOptions{Storage: env.st, Codec: jsonTestCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.CreateIndex(ctx, CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	mustInsert(t, plain, "item", []float32{1, 0, 0}, Metadata{"k": "v"})
	before := env.st.snapshot()
	for name, call := range map[string]func() error{
		"UpsertDocument": func() error { _, err := env.ix.UpsertDocument(ctx, "a.md", "text", "", nil, nil); return err },
		"QueryDocuments": func() error { _, err := env.ix.QueryDocuments(ctx, "text", nil); return err },
		"ListDocuments":  func() error { _, err := env.ix.ListDocuments(ctx); return err },
		"QueryItems": func() error {
			_, err := env.ix.QueryItems(ctx, []float32{1, 0, 0}, "", 1, nil, false)
			return err
		},
	} {
		if err := call(); !errors.Is(err, ErrNotDocumentIndex) {
			t.Errorf("%s: %v, want ErrNotDocumentIndex", name, err)
		}
	}
	if after := env.st.snapshot(); !reflect.DeepEqual(before, after) {
		t.Errorf("files changed: %d files → %d", len(before), len(after))
	}

	empty := newDocTestEnv(t, nil)
	p2, _ := NewLocalIndex(docTestFolder, IndexOptions{Storage: empty.st, Codec: jsonTestCodec{}})
	if err := p2.CreateIndex(ctx, CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	mustUpsertDoc(t, empty.ix, "a.md", "text", "", nil)
}

func float32Inf() float32 { return float32(math.Inf(1)) }
