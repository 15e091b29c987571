package codecpb_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

// Ported from Vectra's src/codecs/LocalIndex.protobuf.spec.ts:
// the engine works the same over the protobuf codec.

const pbFolder = "idx"

func newPBIndex(t *testing.T, s core.FileStorage) *core.LocalIndex {
	t.Helper()
	ix, err := core.NewLocalIndex(pbFolder, core.IndexOptions{Storage: s, Codec: codecpb.New()})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func createPBIndex(t *testing.T, s core.FileStorage, indexed ...string) *core.LocalIndex {
	t.Helper()
	ix := newPBIndex(t, s)
	if err := ix.CreateIndex(context.Background(), core.CreateIndexConfig{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: indexed}}); err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestLocalIndexCreatesIndexPB(t *testing.T) {
	s := core.NewMemoryStorage()
	createPBIndex(t, s)
	if got := names(t, s, pbFolder); !slices.Equal(got, []string{"index.pb"}) {
		t.Errorf("files = %q, want [index.pb]", got)
	}
	raw, _ := s.ReadFile(context.Background(), pbFolder+"/index.pb")
	d, err := codecpb.New().DeserializeIndex(raw)
	if err != nil || d.Version != 1 || len(d.Items) != 0 {
		t.Errorf("index.pb = %#v, %v", d, err)
	}
}

func TestLocalIndexInsertGetUpsertDeleteQueryOverProtobuf(t *testing.T) {
	ctx := context.Background()
	ix := createPBIndex(t, core.NewMemoryStorage())
	if _, err := ix.InsertItem(ctx, core.IndexItem{ID: "a", Vector: []float32{1, 0, 0}, Metadata: core.Metadata{"n": 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.InsertItem(ctx, core.IndexItem{ID: "b", Vector: []float32{0, 1, 0}, Metadata: core.Metadata{"n": 2}}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := ix.GetItem(ctx, "a")
	if err != nil || !ok || got.Metadata["n"] != float64(1) || !slices.Equal(got.Vector, []float32{1, 0, 0}) {
		t.Fatalf("GetItem(a) = %#v, %v, %v", got, ok, err)
	}
	if _, err := ix.UpsertItem(ctx, core.IndexItem{ID: "a", Vector: []float32{0, 0, 1}, Metadata: core.Metadata{"n": 3}}); err != nil {
		t.Fatal(err)
	}
	results, err := ix.QueryItems(ctx, []float32{0, 0, 1}, "", 1, nil, false)
	if err != nil || len(results) != 1 || results[0].Item.ID != "a" || results[0].Item.Metadata["n"] != float64(3) {
		t.Fatalf("QueryItems = %#v, %v", results, err)
	}
	if err := ix.DeleteItem(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := ix.GetItem(ctx, "a"); ok {
		t.Error("a still present after DeleteItem")
	}
	items, err := ix.ListItems(ctx)
	if err != nil || len(items) != 1 || items[0].ID != "b" {
		t.Errorf("ListItems = %#v, %v", items, err)
	}
}

func TestLocalIndexBatchInsertOverProtobuf(t *testing.T) {
	ctx := context.Background()
	ix := createPBIndex(t, core.NewMemoryStorage())
	var batch []core.IndexItem
	for i, id := range []string{"x", "y", "z"} {
		v := []float32{0, 0, 0}
		v[i] = 1
		batch = append(batch, core.IndexItem{ID: id, Vector: v})
	}
	if _, err := ix.BatchInsertItems(ctx, batch); err != nil {
		t.Fatal(err)
	}
	stats, err := ix.GetIndexStats(ctx)
	if err != nil || stats.Items != 3 {
		t.Errorf("stats = %#v, %v; want 3 items", stats, err)
	}
}

func TestLocalIndexMetadataFilteringOverProtobuf(t *testing.T) {
	ctx := context.Background()
	ix := createPBIndex(t, core.NewMemoryStorage(), "category")
	for _, it := range []core.IndexItem{
		{ID: "1", Vector: []float32{1, 0}, Metadata: core.Metadata{"category": "news"}},
		{ID: "2", Vector: []float32{0, 1}, Metadata: core.Metadata{"category": "sports"}},
		{ID: "3", Vector: []float32{1, 1}, Metadata: core.Metadata{"category": "news"}},
	} {
		if _, err := ix.InsertItem(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	items, err := ix.ListItemsByMetadata(ctx, core.Filter{"category": map[string]any{"$eq": "news"}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"1", "3"}) {
		t.Errorf("ids = %q, want [1 3]", ids)
	}
}

func TestLocalIndexSideCarsUseThePBExtensionAndHoldJSON(t *testing.T) {
	ctx := context.Background()
	s := core.NewMemoryStorage()
	ix := createPBIndex(t, s, "category")
	if _, err := ix.InsertItem(ctx, core.IndexItem{ID: "s", Vector: []float32{1}, Metadata: core.Metadata{"category": "a", "body": "long text"}}); err != nil {
		t.Fatal(err)
	}
	var sidecars []string
	for _, n := range names(t, s, pbFolder) {
		if n != "index.pb" {
			sidecars = append(sidecars, n)
		}
	}
	if len(sidecars) != 1 || !strings.HasSuffix(sidecars[0], ".pb") {
		t.Fatalf("side-cars = %q, want one .pb file", sidecars)
	}
	raw, _ := s.ReadFile(ctx, pbFolder+"/"+sidecars[0])
	if string(raw) != `{"body":"long text","category":"a"}` {
		t.Errorf("side-car = %s, want JSON text", raw)
	}
}

func TestLocalIndexDataPersistsAndReloadsOverProtobuf(t *testing.T) {
	ctx := context.Background()
	s := core.NewMemoryStorage()
	ix := createPBIndex(t, s, "k")
	want := core.IndexItem{ID: "p", Vector: []float32{0.6, 0.8}, Metadata: core.Metadata{"k": "v", "extra": true}}
	if _, err := ix.InsertItem(ctx, want); err != nil {
		t.Fatal(err)
	}
	reopened := newPBIndex(t, s)
	got, ok, err := reopened.GetItem(ctx, "p")
	if err != nil || !ok {
		t.Fatalf("GetItem after reload = %v, %v", ok, err)
	}
	if got.ID != want.ID || !slices.Equal(got.Vector, want.Vector) || got.Metadata["k"] != "v" {
		t.Errorf("reloaded %#v, want %#v", got, want)
	}
	results, err := reopened.QueryItems(ctx, []float32{0.6, 0.8}, "", 1, nil, false)
	if err != nil || len(results) != 1 {
		t.Fatalf("QueryItems after reload = %#v, %v", results, err)
	}
	if !reflect.DeepEqual(results[0].Item.Metadata, core.Metadata{"k": "v", "extra": true}) {
		t.Errorf("query result metadata = %#v, want the side-car's full metadata", results[0].Item.Metadata)
	}
}

// names lists the files of folder in s.
func names(t *testing.T, s core.FileStorage, folder string) []string {
	t.Helper()
	list, err := s.ListFiles(t.Context(), folder, core.ListFilesOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range list {
		out = append(out, d.Name)
	}
	return out
}
