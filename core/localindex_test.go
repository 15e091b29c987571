package core

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"testing"
)

// Ports of Vectra's src/LocalIndex.spec.ts, one subtest per case,
// and the fixes of the design §5, each with its own test.

var ctxb = context.Background()

func TestLocalIndexLifecycle(t *testing.T) {
	t.Run("creating an index makes IsIndexCreated true and FolderPath echoes the path", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		ok, err := ix.IsIndexCreated(ctxb)
		if err != nil || !ok {
			t.Fatalf("IsIndexCreated = %v, %v; want true", ok, err)
		}
		if ix.FolderPath() != idxTestFolder {
			t.Fatalf("FolderPath = %q", ix.FolderPath())
		}
	})
	t.Run("the default index name is index plus the codec extension and Storage is set", func(t *testing.T) {
		ix, st := newTestIndex(t)
		if ix.IndexName() != "index.json" {
			t.Fatalf("IndexName = %q", ix.IndexName())
		}
		if ix.Storage() != FileStorage(st) || ix.Codec() == nil {
			t.Fatal("Storage or Codec getter not set")
		}
	})
	t.Run("a second BeginUpdate is ErrUpdateInProgress", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		if err := ix.BeginUpdate(ctxb); !errors.Is(err, ErrUpdateInProgress) {
			t.Fatalf("second BeginUpdate = %v; want ErrUpdateInProgress", err)
		}
	})
	t.Run("a second CreateIndex is ErrIndexExists", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		if err := ix.CreateIndex(ctxb, CreateIndexConfig{}); !errors.Is(err, ErrIndexExists) {
			t.Fatalf("CreateIndex = %v; want ErrIndexExists", err)
		}
	})
	t.Run("CreateIndex with DeleteIfExists recreates an empty index", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{1, 2, 3}, nil)
		if err := ix.CreateIndex(ctxb, CreateIndexConfig{DeleteIfExists: true}); err != nil {
			t.Fatal(err)
		}
		if n := len(mustList(t, ix)); n != 0 {
			t.Fatalf("items after recreate = %d; want 0", n)
		}
	})
	t.Run("a failed CreateIndex write leaves no usable index", func(t *testing.T) {
		ix, st := newTestIndex(t)
		st.failWrite = func(string) error { return errors.New("fs error") }
		if err := ix.CreateIndex(ctxb, CreateIndexConfig{}); err == nil {
			t.Fatal("CreateIndex succeeded; want the write error")
		}
		st.failWrite = nil
		if ok, _ := ix.IsIndexCreated(ctxb); ok {
			t.Fatal("IsIndexCreated true after failed create")
		}
		if _, err := ix.ListItems(ctxb); !errors.Is(err, ErrIndexNotFound) {
			t.Fatalf("ListItems = %v; want ErrIndexNotFound", err)
		}
	})
	t.Run("custom version and metadata config are returned by GetIndexStats", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{Version: 2, MetadataConfig: MetadataConfig{Indexed: []string{"category"}}})
		stats, err := ix.GetIndexStats(ctxb)
		if err != nil {
			t.Fatal(err)
		}
		want := IndexStats{Version: 2, MetadataConfig: MetadataConfig{Indexed: []string{"category"}}, Storage: LayoutStats{Layout: LayoutFile}}
		if !reflect.DeepEqual(stats, want) {
			t.Fatalf("stats = %+v; want %+v", stats, want)
		}
	})
	t.Run("ListItems on a never-created index is ErrIndexNotFound", func(t *testing.T) {
		ix, _ := newTestIndex(t)
		if _, err := ix.ListItems(ctxb); !errors.Is(err, ErrIndexNotFound) {
			t.Fatalf("ListItems = %v; want ErrIndexNotFound", err)
		}
	})
	t.Run("DeleteIndex removes the folder and later reads are ErrIndexNotFound", func(t *testing.T) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{1}, nil)
		if err := ix.DeleteIndex(ctxb); err != nil {
			t.Fatal(err)
		}
		if ok, _ := ix.IsIndexCreated(ctxb); ok {
			t.Fatal("IsIndexCreated true after DeleteIndex")
		}
		if ok, _ := st.PathExists(ctxb, idxTestFolder); ok {
			t.Fatal("folder still exists")
		}
		if _, _, err := ix.GetItem(ctxb, "1"); !errors.Is(err, ErrIndexNotFound) {
			t.Fatalf("GetItem = %v; want ErrIndexNotFound", err)
		}
	})
	t.Run("IsIndexCreated goes false, true, false across create and delete", func(t *testing.T) {
		ix, _ := newTestIndex(t)
		var got []bool
		check := func() {
			ok, err := ix.IsIndexCreated(ctxb)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ok)
		}
		check()
		if err := ix.CreateIndex(ctxb, CreateIndexConfig{}); err != nil {
			t.Fatal(err)
		}
		check()
		if err := ix.DeleteIndex(ctxb); err != nil {
			t.Fatal(err)
		}
		check()
		if !reflect.DeepEqual(got, []bool{false, true, false}) {
			t.Fatalf("IsIndexCreated sequence = %v", got)
		}
	})
	t.Run("GetIndexStats of an empty default index is version 1, no config, 0 items", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		stats, err := ix.GetIndexStats(ctxb)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(stats, IndexStats{Version: 1, Storage: LayoutStats{Layout: LayoutFile}}) {
			t.Fatalf("stats = %+v", stats)
		}
	})
	t.Run("GetIndexStats counts items and keeps an empty indexed list", func(t *testing.T) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{}}})
		for _, id := range []string{"1", "2", "3"} {
			mustInsert(t, ix, id, []float32{1, 2}, nil)
		}
		stats, err := reopen(t, st).GetIndexStats(ctxb)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Items != 3 || stats.MetadataConfig.Indexed == nil || len(stats.MetadataConfig.Indexed) != 0 {
			t.Fatalf("stats = %+v; want 3 items and indexed []", stats)
		}
	})
	t.Run("a LocalIndex works fully on in-memory storage", func(t *testing.T) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{Version: 3, MetadataConfig: MetadataConfig{Indexed: []string{"a"}}})
		mustInsert(t, ix, "x", []float32{1, 0}, Metadata{"a": "1", "b": "2"})
		stats, err := reopen(t, st).GetIndexStats(ctxb)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Version != 3 || stats.Items != 1 || !slices.Equal(stats.MetadataConfig.Indexed, []string{"a"}) {
			t.Fatalf("stats = %+v", stats)
		}
	})
}

func TestLocalIndexReads(t *testing.T) {
	t.Run("GetItem of a missing id is not found", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		if _, ok, err := ix.GetItem(ctxb, "x"); ok || err != nil {
			t.Fatalf("GetItem = %v, %v", ok, err)
		}
	})
	t.Run("GetItem returns the item with its vector", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{1, 2, 3}, nil)
		mustInsert(t, ix, "2", []float32{2, 3, 4}, nil)
		it, ok, err := ix.GetItem(ctxb, "2")
		if err != nil || !ok || it.ID != "2" || !slices.Equal(it.Vector, []float32{2, 3, 4}) {
			t.Fatalf("GetItem = %+v, %v, %v", it, ok, err)
		}
	})
	t.Run("ListItemsByMetadata returns matches in storage order, [] when none", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{1}, Metadata{"category": "food"})
		mustInsert(t, ix, "2", []float32{1}, Metadata{"category": "drink"})
		mustInsert(t, ix, "3", []float32{1}, Metadata{"category": "food"})
		got, err := ix.ListItemsByMetadata(ctxb, Filter{"category": Filter{"$eq": "food"}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(itemIDs(got), []string{"1", "3"}) {
			t.Fatalf("ids = %v", itemIDs(got))
		}
		got, err = ix.ListItemsByMetadata(ctxb, Filter{"category": "dessert"})
		if err != nil || got == nil || len(got) != 0 {
			t.Fatalf("no match = %v, %v; want []", got, err)
		}
	})
	t.Run("ListItemsByMetadata on an empty index is []", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		got, err := ix.ListItemsByMetadata(ctxb, Filter{"a": "b"})
		if err != nil || len(got) != 0 {
			t.Fatalf("= %v, %v", got, err)
		}
	})
	t.Run("ListItemsByMetadata with an empty filter returns every item", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{1}, Metadata{"a": "x"})
		mustInsert(t, ix, "2", []float32{1}, nil)
		got, err := ix.ListItemsByMetadata(ctxb, Filter{})
		if err != nil || !slices.Equal(itemIDs(got), []string{"1", "2"}) {
			t.Fatalf("= %v, %v", itemIDs(got), err)
		}
	})
	t.Run("an invalid filter is ErrInvalidFilter", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{1}, Metadata{"a": "x"})
		if _, err := ix.ListItemsByMetadata(ctxb, Filter{"a": Filter{"$bogus": 1}}); !errors.Is(err, ErrInvalidFilter) {
			t.Fatalf("ListItemsByMetadata = %v; want ErrInvalidFilter", err)
		}
		if _, err := ix.QueryItems(ctxb, []float32{1}, "", 1, Filter{"a": Filter{"$bogus": 1}}, false); !errors.Is(err, ErrInvalidFilter) {
			t.Fatalf("QueryItems = %v; want ErrInvalidFilter", err)
		}
	})
}

func TestLocalIndexMetadata(t *testing.T) {
	t.Run("with indexed keys, inline metadata keeps them and a side-car holds the full metadata", func(t *testing.T) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"keep"}}})
		it := mustInsert(t, ix, "1", []float32{1, 2}, Metadata{"keep": "k", "other": "o"})
		if !reflect.DeepEqual(it.Metadata, Metadata{"keep": "k"}) || it.MetadataFile == "" {
			t.Fatalf("item = %+v", it)
		}
		if !regexp.MustCompile(`^[0-9a-f-]{36}\.json$`).MatchString(it.MetadataFile) {
			t.Fatalf("side-car name %q is not <uuid>.json", it.MetadataFile)
		}
		raw, err := st.ReadFile(ctxb, idxTestFolder+"/"+it.MetadataFile)
		if err != nil {
			t.Fatal(err)
		}
		md, _ := jsonTestCodec{}.DeserializeMetadata(raw)
		if !reflect.DeepEqual(md, Metadata{"keep": "k", "other": "o"}) {
			t.Fatalf("side-car = %v", md)
		}
		got, _, _ := reopen(t, st).GetItem(ctxb, "1")
		if !reflect.DeepEqual(got.Metadata, Metadata{"keep": "k"}) || got.MetadataFile != it.MetadataFile {
			t.Fatalf("reloaded = %+v", got)
		}
	})
	t.Run("when every key is indexed no side-car is written", func(t *testing.T) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"a", "b"}}})
		it := mustInsert(t, ix, "1", []float32{1}, Metadata{"a": "1", "b": true})
		if it.MetadataFile != "" || len(st.fileNames(idxTestFolder)) != 1 {
			t.Fatalf("side-car written: %+v, files %v", it, st.fileNames(idxTestFolder))
		}
	})
	t.Run("without indexed keys metadata stays inline and no side-car is written", func(t *testing.T) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{})
		it := mustInsert(t, ix, "1", []float32{1}, Metadata{"a": "1", "b": 2})
		if it.MetadataFile != "" || !reflect.DeepEqual(it.Metadata, Metadata{"a": "1", "b": float64(2)}) || len(st.fileNames(idxTestFolder)) != 1 {
			t.Fatalf("item = %+v, files %v", it, st.fileNames(idxTestFolder))
		}
	})
	t.Run("a filter on a non-indexed key matches nothing, even $ne", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"a"}}})
		mustInsert(t, ix, "1", []float32{1}, Metadata{"a": "x", "b": "y"})
		for _, f := range []Filter{{"b": "y"}, {"b": Filter{"$ne": "z"}}} {
			got, err := ix.ListItemsByMetadata(ctxb, f)
			if err != nil || len(got) != 0 {
				t.Fatalf("%v = %v, %v; want none", f, itemIDs(got), err)
			}
		}
	})
	tests := []struct {
		name string
		in   any
		want any
	}{
		{"an int is stored as float64", 7, float64(7)},
		{"an int64 is stored as float64", int64(-3), float64(-3)},
		{"a uint8 is stored as float64", uint8(200), float64(200)},
		{"a float32 is stored as float64", float32(0.5), float64(0.5)},
		{"a string is kept", "s", "s"},
		{"a bool is kept", false, false},
	}
	for _, tt := range tests {
		t.Run("metadata: "+tt.name, func(t *testing.T) {
			ix, _ := newCreatedIndex(t, CreateIndexConfig{})
			it := mustInsert(t, ix, "1", []float32{1}, Metadata{"k": tt.in})
			if it.Metadata["k"] != tt.want {
				t.Fatalf("stored %#v; want %#v", it.Metadata["k"], tt.want)
			}
		})
	}
	for _, bad := range []any{nil, []string{"a"}, map[string]any{}, struct{}{}} {
		t.Run("metadata: a value that is not a string, bool or number is ErrInvalidArgument", func(t *testing.T) {
			ix, _ := newCreatedIndex(t, CreateIndexConfig{})
			if _, err := ix.InsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{1}, Metadata: Metadata{"k": bad}}); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("insert %#v = %v; want ErrInvalidArgument", bad, err)
			}
		})
	}
}
