package acceptance_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	storagemem "github.com/foliovec/folio/adapters/storage-mem"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// A folder written by Folio is read back by Folio with identical content,
// with either codec: items (ids, vectors, norms, inline metadata, side-car
// names) in order, stats, and side-car metadata.
func TestRoundTripThroughTheCodecs(t *testing.T) {
	for _, codec := range []core.IndexCodec{codecjson.New(), codecpb.New()} {
		for _, storage := range []string{"files", "memory"} {
			t.Run(codec.Extension()+" on "+storage, func(t *testing.T) {
				roundTrip(t, codec, storage)
			})
		}
	}
}

func roundTrip(t *testing.T, codec core.IndexCodec, storage string) {
	ctx := context.Background()
	var st core.FileStorage = storagemem.New()
	folder := "rt"
	if storage == "files" {
		st = localStorage()
		folder = filepath.Join(t.TempDir(), "rt")
	}
	open := func() *core.LocalIndex {
		// Dropped side-cars deleted at the commit, so the folder holds
		// exactly the side-cars of the items.
		ix, err := core.NewLocalIndex(folder, core.IndexOptions{Storage: st, Codec: codec, RetainDropped: -1})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	w := open()
	if err := w.CreateIndex(ctx, core.CreateIndexConfig{Version: 2, MetadataConfig: core.MetadataConfig{Indexed: []string{"category", "year", "flag"}}}); err != nil {
		t.Fatal(err)
	}
	var items []core.IndexItem
	for i := range 40 {
		v := make([]float32, 8)
		for j := range v {
			v[j] = float32(math.Sin(float64(i*8+j))) * float32(math.Pow(10, float64(j%5-2)))
		}
		md := core.Metadata{"category": fmt.Sprint("c", i%4), "year": 1990 + i, "flag": i%3 == 0}
		switch i % 5 {
		case 0:
			md["title"] = fmt.Sprintf("Item %d — café ☕ \"quoted\" \\ \n", i)
			md["score"] = float64(i) / 7
		case 1:
			md["zero"] = 0
			md["empty"] = ""
			md["no"] = false
		case 2:
			delete(md, "year") // indexed keys only, no side-car
		case 3:
			md = nil
		}
		items = append(items, core.IndexItem{ID: fmt.Sprintf("id-%02d", i), Vector: v, Metadata: md})
	}
	items[7].Vector = make([]float32, 8) // zero vector
	items[9].Vector[3] = 1e-30           // tiny
	items[11].Vector[2] = 3e38           // huge
	if _, err := w.BatchInsertItems(ctx, items[:30]); err != nil {
		t.Fatal(err)
	}
	for _, it := range items[30:] {
		if _, err := w.InsertItem(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.UpsertItem(ctx, core.IndexItem{ID: "id-05", Vector: items[6].Vector, Metadata: core.Metadata{"category": "new", "extra": "side"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.DeleteItems(ctx, []string{"id-01", "id-20"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.InsertItem(ctx, core.IndexItem{Vector: items[3].Vector, Metadata: core.Metadata{"category": "auto"}}); err != nil {
		t.Fatal(err)
	}

	want := snapshotOf(t, w)
	got := snapshotOf(t, open())
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back differs:\n got %+v\nwant %+v", got, want)
	}
	// Side-car files follow Vectra's layout: <uuid><ext>, JSON text.
	files, err := st.ListFiles(ctx, folder, core.ListFilesOnly)
	if err != nil {
		t.Fatal(err)
	}
	sidecars := 0
	for _, f := range files {
		if f.Name == "index"+codec.Extension() || strings.HasPrefix(f.Name, ".folio") {
			continue // Folio's own files (the lock, the dropped-files list), which Vectra ignores
		}
		if !strings.HasSuffix(f.Name, codec.Extension()) || len(f.Name) != 36+len(codec.Extension()) {
			t.Fatalf("unexpected file %q", f.Name)
		}
		raw, _ := st.ReadFile(ctx, folder+"/"+f.Name)
		if raw[0] != '{' {
			t.Fatalf("side-car %s is not JSON text: %q", f.Name, raw)
		}
		sidecars++
	}
	if sidecars != want.sidecars {
		t.Fatalf("%d side-car files for %d items with one", sidecars, want.sidecars)
	}
}

// A Vectra-made folder saved again by Folio reads back the same.
func TestVectraFolderSavedByFolioReadsBackTheSame(t *testing.T) {
	fx := testkit.FixtureDir(t)
	for _, fc := range itemFixtures {
		t.Run(fc.folder, func(t *testing.T) {
			ctx := context.Background()
			ix := openFixture(t, fx+"/"+fc.folder, fc.codec)
			before := snapshotOf(t, ix)
			if err := ix.BeginUpdate(ctx); err != nil {
				t.Fatal(err)
			}
			if err := ix.EndUpdate(ctx); err != nil {
				t.Fatal(err)
			}
			again, err := core.NewLocalIndex(ix.FolderPath(), core.IndexOptions{Storage: ix.Storage(), Codec: fc.codec})
			if err != nil {
				t.Fatal(err)
			}
			if after := snapshotOf(t, again); !reflect.DeepEqual(after, before) {
				t.Fatalf("after a save by Folio:\n got %+v\nwant %+v", after, before)
			}
		})
	}
}

type indexContent struct {
	stats    core.IndexStats
	items    []core.IndexItem
	full     map[string]core.Metadata // id → metadata a query returns (side-car or inline)
	sidecars int
}

func snapshotOf(t *testing.T, ix *core.LocalIndex) indexContent {
	t.Helper()
	ctx := context.Background()
	stats, err := ix.GetIndexStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	items, err := ix.ListItems(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := indexContent{stats: stats, items: items, full: map[string]core.Metadata{}}
	if len(items) == 0 {
		return c
	}
	// A zero query returns every item with its full metadata.
	res, err := ix.QueryItems(ctx, make([]float32, len(items[0].Vector)), "", len(items), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		c.full[r.Item.ID] = r.Item.Metadata
		if r.Item.MetadataFile != "" {
			c.sidecars++
		}
	}
	if ids := queryIDs(res); !slices.Equal(ids, itemIDsOf(items)) {
		t.Fatalf("zero query order %v; want storage order %v", ids, itemIDsOf(items))
	}
	return c
}

func itemIDsOf(items []core.IndexItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}
