package folio

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

// TestSegmentedLayoutWithEachCodec writes the same items on both layouts
// with each codec, on the local file system, and reads them back through a
// new index: the segmented layout stores ids, metadata, norms and side-car
// names through the codec, and vectors exactly.
func TestSegmentedLayoutWithEachCodec(t *testing.T) {
	ctx := context.Background()
	for _, codec := range []core.IndexCodec{codecjson.New(), codecpb.New()} {
		t.Run(codec.Extension(), func(t *testing.T) {
			dirs := map[core.Layout]string{}
			for _, layout := range []core.Layout{core.LayoutFile, core.LayoutSegmented} {
				dir := filepath.Join(t.TempDir(), "idx")
				dirs[layout] = dir
				ix, err := NewLocalIndex(dir, &IndexOptions{Codec: codec})
				if err != nil {
					t.Fatal(err)
				}
				cfg := core.CreateIndexConfig{Layout: layout, MetadataConfig: core.MetadataConfig{Indexed: []string{"n"}}}
				if err := ix.CreateIndex(ctx, cfg); err != nil {
					t.Fatal(err)
				}
				r := rand.New(rand.NewPCG(3, 4))
				for i := range 150 {
					v := make([]float32, 12)
					for j := range v {
						v[j] = float32(r.NormFloat64())
					}
					md := core.Metadata{"n": float64(i % 7), "s": fmt.Sprint("text ", i%3), "b": i%2 == 0}
					if _, err := ix.UpsertItem(ctx, core.IndexItem{ID: fmt.Sprint("id", r.IntN(120)), Vector: v, Metadata: md}); err != nil {
						t.Fatal(err)
					}
					if i%9 == 0 {
						if err := ix.DeleteItem(ctx, fmt.Sprint("id", r.IntN(120))); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			read := func(layout core.Layout) ([]core.IndexItem, [][]core.QueryResult) {
				ix, err := NewLocalIndex(dirs[layout], &IndexOptions{Codec: codec})
				if err != nil {
					t.Fatal(err)
				}
				items, err := ix.ListItems(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for i := range items {
					if items[i].MetadataFile != "" {
						full, _, err := ix.GetItem(ctx, items[i].ID)
						if err != nil {
							t.Fatal(err)
						}
						items[i] = full
						items[i].MetadataFile = "sidecar"
					}
				}
				slices.SortFunc(items, func(a, b core.IndexItem) int { return cmp.Compare(a.ID, b.ID) })
				var results [][]core.QueryResult
				q := rand.New(rand.NewPCG(5, 6))
				for range 5 {
					v := make([]float32, 12)
					for j := range v {
						v[j] = float32(q.NormFloat64())
					}
					rs, err := ix.QueryItems(ctx, v, "", 7, core.Filter{"n": map[string]any{"$gte": float64(2)}}, false)
					if err != nil {
						t.Fatal(err)
					}
					for i := range rs {
						rs[i].Item.MetadataFile = ""
					}
					results = append(results, rs)
				}
				return items, results
			}
			fileItems, fileResults := read(core.LayoutFile)
			segItems, segResults := read(core.LayoutSegmented)
			if len(fileItems) == 0 || !reflect.DeepEqual(fileItems, segItems) {
				t.Fatalf("items differ: %d on the file layout, %d segmented", len(fileItems), len(segItems))
			}
			if !reflect.DeepEqual(fileResults, segResults) {
				t.Fatalf("query results differ:\n%v\n%v", fileResults, segResults)
			}
		})
	}
}
