package core

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/foliovec/folio/core/internal/vecmath"
)

// Vectors a mapped index hands out are the caller's own: they stay valid
// after the index, its snapshots and the mapping are gone.
func TestMappedVectorsOutliveTheIndex(t *testing.T) {
	ctx := context.Background()
	st := &mappingTestStorage{memTestStorage: newMemTestStorage()}
	opts := IndexOptions{Storage: st, Codec: jsonTestCodec{}}
	items := insertRandom(t, newSegmentedIndex(t, opts), rand.New(rand.NewPCG(8, 8)), "i", 50, 6)
	want := map[string][]float32{}
	for _, it := range items {
		want[it.ID] = slices.Clone(it.Vector)
	}
	got := func() []IndexItem {
		ix, err := NewLocalIndex(idxTestFolder, opts)
		if err != nil {
			t.Fatal(err)
		}
		ix.mapMin = 1
		all, err := ix.ListItems(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ix.QueryItems(ctx, items[3].Vector, "", 5, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		one, _, err := ix.GetItem(ctx, "i7")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			all = append(all, r.Item)
		}
		return append(all, one)
	}()
	if st.maps.Load() == 0 {
		t.Fatal("the segment was not mapped")
	}
	for range 100 {
		runtime.GC()
		if st.open.Load() == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st.open.Load() != 0 {
		t.Fatal("the mapping is still open with no index holding it")
	}
	for _, it := range got {
		if !slices.Equal(it.Vector, want[it.ID]) {
			t.Fatalf("item %s: vector %v after the mapping closed, want %v", it.ID, it.Vector, want[it.ID])
		}
	}
}

// A compaction of an index read from a mapping reads the index again from
// the new segment, so that the dropped segment's mapping (and the space of
// its deleted file) is released once no query uses it.
func TestCompactionReleasesTheMappedSegment(t *testing.T) {
	ctx := context.Background()
	st := &mappingTestStorage{memTestStorage: newMemTestStorage()}
	opts := IndexOptions{Storage: st, Codec: jsonTestCodec{}, RetainDropped: -1}
	items := insertRandom(t, newSegmentedIndex(t, opts), rand.New(rand.NewPCG(9, 9)), "i", 40, 4)
	ix, err := NewLocalIndex(idxTestFolder, opts)
	if err != nil {
		t.Fatal(err)
	}
	ix.mapMin = 1
	before, err := ix.QueryItems(ctx, items[0].Vector, "", 40, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.UpsertItem(ctx, IndexItem{ID: "i3", Vector: items[3].Vector}); err != nil {
		t.Fatal(err)
	}
	if rep, err := ix.Compact(ctx); err != nil || rep.Segments != 2 {
		t.Fatalf("Compact = %+v, %v", rep, err)
	}
	if st.released.Load() != 1 {
		t.Fatalf("%d releases of the old mapping's pages, want 1", st.released.Load())
	}
	// The new state took the compacted rows' scales from the compaction
	// instead of reading every row again: they are what reading gives.
	s := ix.cur.Load()
	for i := range s.len() {
		if want := vecmath.FastScale(s.Vector(i)); s.Scale[i] != want {
			t.Fatalf("row %d: scale %v, want %v", i, s.Scale[i], want)
		}
	}
	after, err := ix.QueryItems(ctx, items[0].Vector, "", 40, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range after {
		if after[i].Item.ID != before[i].Item.ID || after[i].Score != before[i].Score {
			t.Fatalf("rank %d after the compaction: %s %v, before %s %v", i, after[i].Item.ID, after[i].Score, before[i].Item.ID, before[i].Score)
		}
	}
	for range 100 {
		runtime.GC()
		if st.open.Load() == 1 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st.maps.Load() != 2 || st.open.Load() != 1 {
		t.Fatalf("%d mappings made, %d open; want the new segment's mapped and the old one's closed", st.maps.Load(), st.open.Load())
	}
	runtime.KeepAlive(ix) // its snapshot holds the new mapping until here
}

// newSegmentedIndex creates a segmented index in idxTestFolder with opts
// (its Codec jsonTestCodec when unset).
func newSegmentedIndex(t testing.TB, opts IndexOptions) *LocalIndex {
	t.Helper()
	if opts.Codec == nil {
		opts.Codec = jsonTestCodec{}
	}
	ix, err := NewLocalIndex(idxTestFolder, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(context.Background(), CreateIndexConfig{Layout: LayoutSegmented}); err != nil {
		t.Fatal(err)
	}
	return ix
}

// openTestIndex opens the index in idxTestFolder with opts.
func openTestIndex(t testing.TB, opts IndexOptions) *LocalIndex {
	t.Helper()
	ix, err := NewLocalIndex(idxTestFolder, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// threeSegments creates a segmented index in idxTestFolder with opts and
// writes it three segments: n random rows of d values ("a0"…), n more
// ("b0"…) and 10 ("c0"…), drawn from seed, seed+1 and seed+2. It returns
// the index and the items.
func threeSegments(t testing.TB, opts IndexOptions, seed uint64, n, d int) (*LocalIndex, []IndexItem) {
	t.Helper()
	w := newSegmentedIndex(t, opts)
	var items []IndexItem
	for k, prefix := range []string{"a", "b", "c"} {
		rows := n
		if prefix == "c" {
			rows = 10
		}
		s := seed + uint64(k)
		items = append(items, insertRandom(t, w, rand.New(rand.NewPCG(s, s)), prefix, rows, d)...)
	}
	if got := len(w.lay.(*segLayout).man.Segments); got != 3 {
		t.Fatalf("%d segments, want 3", got)
	}
	return w, items
}

// insertRandom inserts n items "<prefix><i>" with random vectors of dim
// in one batch and returns them.
func insertRandom(t testing.TB, ix *LocalIndex, rng *rand.Rand, prefix string, n, dim int) []IndexItem {
	t.Helper()
	items := make([]IndexItem, n)
	for i := range items {
		items[i] = IndexItem{ID: fmt.Sprint(prefix, i), Vector: randomVector(rng, dim)}
	}
	if _, err := ix.BatchInsertItems(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	return items
}

// With ResidentVectors a segmented index maps no file, even on storage
// that maps files, and answers as the mapped index does.
func TestResidentVectorsMapNothing(t *testing.T) {
	ctx := context.Background()
	st := &mappingTestStorage{memTestStorage: newMemTestStorage()}
	opts := IndexOptions{Storage: st, Codec: jsonTestCodec{}}
	items := insertRandom(t, newSegmentedIndex(t, opts), rand.New(rand.NewPCG(10, 10)), "i", 3000, 8)
	answers := func(opts IndexOptions) []QueryResult {
		ix, err := NewLocalIndex(idxTestFolder, opts)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ix.QueryItems(ctx, items[11].Vector, "", 10, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	mapped := answers(opts)
	if st.maps.Load() != 1 {
		t.Fatalf("%d mappings without ResidentVectors, want 1 (3,000 rows is enough to map)", st.maps.Load())
	}
	opts.ResidentVectors = true
	resident := answers(opts)
	if st.maps.Load() != 1 {
		t.Fatalf("%d mappings after opening with ResidentVectors, want still 1", st.maps.Load())
	}
	if !slices.EqualFunc(mapped, resident, func(a, b QueryResult) bool { return a.Item.ID == b.Item.ID && a.Score == b.Score }) {
		t.Fatalf("resident answers %v, mapped %v", resultIDs(resident), resultIDs(mapped))
	}
}
