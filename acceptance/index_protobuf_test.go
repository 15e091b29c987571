package acceptance_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

// Ports of Vectra's src/codecs/LocalIndex.protobuf.spec.ts: a
// LocalIndex with the protobuf codec, on the local file system.
func TestLocalIndexWithProtobuf(t *testing.T) {
	ctx := context.Background()
	newIndex := func(t *testing.T, indexed ...string) (*core.LocalIndex, string) {
		dir := filepath.Join(t.TempDir(), "pb")
		ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codecpb.New()})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.CreateIndex(ctx, core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: indexed}}); err != nil {
			t.Fatal(err)
		}
		return ix, dir
	}
	t.Run("creating the index writes index.pb", func(t *testing.T) {
		_, dir := newIndex(t)
		if _, err := os.Stat(filepath.Join(dir, "index.pb")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("insert, get, upsert, delete and query work", func(t *testing.T) {
		ix, _ := newIndex(t)
		for _, it := range []core.IndexItem{{ID: "a", Vector: []float32{1, 0, 0}}, {ID: "b", Vector: []float32{0, 1, 0}}} {
			if _, err := ix.InsertItem(ctx, it); err != nil {
				t.Fatal(err)
			}
		}
		if got, ok, err := ix.GetItem(ctx, "b"); err != nil || !ok || !slices.Equal(got.Vector, []float32{0, 1, 0}) {
			t.Fatalf("GetItem = %+v, %v, %v", got, ok, err)
		}
		if _, err := ix.UpsertItem(ctx, core.IndexItem{ID: "a", Vector: []float32{0, 0, 1}}); err != nil {
			t.Fatal(err)
		}
		res, err := ix.QueryItems(ctx, []float32{0, 0, 1}, "", 1, nil, false)
		if err != nil || len(res) != 1 || res[0].Item.ID != "a" {
			t.Fatalf("QueryItems = %v, %v", queryIDs(res), err)
		}
		if err := ix.DeleteItem(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := ix.GetItem(ctx, "a"); ok {
			t.Fatal("deleted item still there")
		}
	})
	t.Run("batch insert works", func(t *testing.T) {
		ix, _ := newIndex(t)
		if _, err := ix.BatchInsertItems(ctx, []core.IndexItem{{ID: "1", Vector: []float32{1, 2}}, {ID: "2", Vector: []float32{3, 4}}}); err != nil {
			t.Fatal(err)
		}
		stats, err := ix.GetIndexStats(ctx)
		if err != nil || stats.Items != 2 {
			t.Fatalf("stats = %+v, %v", stats, err)
		}
	})
	t.Run("metadata filtering works", func(t *testing.T) {
		ix, _ := newIndex(t)
		for _, it := range []core.IndexItem{
			{ID: "1", Vector: []float32{1, 0}, Metadata: core.Metadata{"category": "a", "n": 1}},
			{ID: "2", Vector: []float32{1, 0}, Metadata: core.Metadata{"category": "b", "n": 2}},
			{ID: "3", Vector: []float32{1, 0}, Metadata: core.Metadata{"category": "a", "n": 3, "flag": true}},
		} {
			if _, err := ix.InsertItem(ctx, it); err != nil {
				t.Fatal(err)
			}
		}
		got, err := ix.ListItemsByMetadata(ctx, core.Filter{"category": "a", "n": core.Filter{"$gt": 1}})
		if err != nil || len(got) != 1 || got[0].ID != "3" {
			t.Fatalf("ListItemsByMetadata = %v, %v", got, err)
		}
	})
	t.Run("side-car files use the .pb extension and hold JSON", func(t *testing.T) {
		ix, dir := newIndex(t, "category")
		it, err := ix.InsertItem(ctx, core.IndexItem{ID: "1", Vector: []float32{1}, Metadata: core.Metadata{"category": "a", "note": "side"}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(it.MetadataFile, ".pb") {
			t.Fatalf("side-car %q", it.MetadataFile)
		}
		raw, err := os.ReadFile(filepath.Join(dir, it.MetadataFile))
		if err != nil || !strings.HasPrefix(string(raw), "{") {
			t.Fatalf("side-car content %q, %v", raw, err)
		}
	})
	t.Run("data persists and reloads in a new instance", func(t *testing.T) {
		ix, dir := newIndex(t, "category")
		if _, err := ix.InsertItem(ctx, core.IndexItem{ID: "1", Vector: []float32{0.5, 0.25}, Metadata: core.Metadata{"category": "a", "note": "side"}}); err != nil {
			t.Fatal(err)
		}
		again, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codecpb.New()})
		if err != nil {
			t.Fatal(err)
		}
		res, err := again.QueryItems(ctx, []float32{1, 0}, "", 1, nil, false)
		if err != nil || len(res) != 1 || res[0].Item.Metadata["note"] != "side" || !slices.Equal(res[0].Item.Vector, []float32{0.5, 0.25}) {
			t.Fatalf("reloaded = %+v, %v", res, err)
		}
	})
}
