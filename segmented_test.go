package folio

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
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

// TestConvertLayoutRoundTrip converts a protobuf index to the segmented
// layout and back: the index file comes back byte for byte, and on the
// segmented layout the index answers as before.
func TestConvertLayoutRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "idx")
	opts := &IndexOptions{Codec: codecpb.New(), RetainDropped: -1}
	ix, err := NewLocalIndex(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"n"}}}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for i := range 60 {
		v := []float32{float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())}
		if _, err := ix.UpsertItem(ctx, core.IndexItem{ID: fmt.Sprint("id", i%40), Vector: v, Metadata: core.Metadata{"n": float64(i), "other": "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.DeleteItem(ctx, "id3"); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, "index.pb"))
	if err != nil {
		t.Fatal(err)
	}
	items, _ := ix.ListItems(ctx)
	if err := ix.ConvertLayout(ctx, core.LayoutSegmented); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.pb")); !os.IsNotExist(err) {
		t.Fatalf("index.pb still there after converting to segments: %v", err)
	}
	again, _ := NewLocalIndex(dir, opts)
	got, err := again.ListItems(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, items) {
		t.Fatal("items differ on the segmented layout")
	}
	if stats, _ := again.GetIndexStats(ctx); stats.Storage.Layout != core.LayoutSegmented {
		t.Fatalf("layout %q", stats.Storage.Layout)
	}
	if err := again.ConvertLayout(ctx, core.LayoutFile); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(dir, "index.pb"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatalf("index.pb differs after the round trip: %d bytes, then %d", len(before), len(after))
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".seg") || strings.HasSuffix(e.Name(), ".segments") {
			t.Fatalf("%s left after converting back", e.Name())
		}
	}
}

// A migration from the segmented layout to either Vectra format leaves no
// segment file for good (they leaked, 31 MB at 100k×64): the segments are
// listed as dropped, for readers still on them, and the next Vacuum (or
// commit) past IndexOptions.RetainDropped deletes every one, of either
// codec, while the migrated index keeps its items.
func TestMigrateFromSegmentsLeavesNoSegmentFiles(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		from core.IndexCodec
		to   string
	}{{codecpb.New(), FormatJSON}, {codecjson.New(), FormatProtobuf}, {codecpb.New(), FormatProtobuf}, {codecjson.New(), FormatJSON}} {
		t.Run(tc.from.Extension()+"→"+tc.to, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "idx")
			ix, err := NewLocalIndex(dir, &IndexOptions{Codec: tc.from})
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented}); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			for c := range 3 {
				items := make([]core.IndexItem, 50)
				for i := range items {
					items[i] = core.IndexItem{ID: fmt.Sprint(c, "-", i), Vector: []float32{rng.Float32(), rng.Float32(), 1}}
				}
				if _, err := ix.BatchInsertItems(ctx, items); err != nil {
					t.Fatal(err)
				}
			}
			segments := func() []string {
				matches, _ := filepath.Glob(filepath.Join(dir, "*.seg"))
				return matches
			}
			if len(segments()) != 3 {
				t.Fatalf("%d segment files before the migration", len(segments()))
			}
			if err := MigrateIndex(ctx, dir, MigrateOptions{To: tc.to}); err != nil {
				t.Fatal(err)
			}
			codec, err := DetectCodec(ctx, dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(segments()) == 0 {
				t.Fatal("the segments went at once: readers still on them would fail")
			}
			migrated, err := NewLocalIndex(dir, &IndexOptions{Codec: codec, RetainDropped: -1})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := migrated.Vacuum(ctx); err != nil {
				t.Fatal(err)
			}
			if got := segments(); len(got) != 0 {
				t.Fatalf("after Vacuum the folder still holds %v", got)
			}
			if st, err := migrated.GetIndexStats(ctx); err != nil || st.Items != 150 || st.Storage.Layout != core.LayoutFile {
				t.Fatalf("the migrated index: %+v %v", st, err)
			}
		})
	}
}
