package core

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// An index that keeps 4-bit codes writes them into its segments, and one
// that maps a segment reads them from it instead of coding its vectors:
// the first run of its codes is the segment's (sealed), rows added later
// are coded on that run's grid, and the answers are the exact scan's. The
// vectors' own checksum is left to readers that read them: a damaged
// vector byte fails an exact open and not a 4-bit one.
func TestInt4CodesComeFromTheSegment(t *testing.T) {
	ctx := context.Background()
	st := &mappingTestStorage{memTestStorage: newMemTestStorage()}
	int4 := IndexOptions{Storage: st, Codec: jsonTestCodec{}, ScanCodes: CodesInt4}
	const n, d = 3000, 48
	w := newSegmentedIndex(t, int4)
	items := insertRandom(t, w, rand.New(rand.NewPCG(12, 12)), "i", n, d)
	if _, err := w.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	open := func(opts IndexOptions) *LocalIndex {
		t.Helper()
		ix, err := NewLocalIndex(idxTestFolder, opts)
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	coded, exact := open(int4), open(IndexOptions{Storage: st, Codec: jsonTestCodec{}})
	queries := append([][]float32{items[5].Vector}, gaussianUnitVectors(13, 20, d)...)
	for _, q := range queries {
		got, err := coded.QueryItems(ctx, q, "", 10, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exact.QueryItems(ctx, q, "", 10, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, "4-bit codes read from the segment", got, want)
	}
	if st.maps.Load() != 2 {
		t.Fatalf("%d mappings, want the segment mapped by each index", st.maps.Load())
	}
	// The 4-bit index re-ranked and handed out rows read from the file,
	// the exact one from its mapping.
	if st.readAts.Load() < int64(len(queries)) {
		t.Fatalf("%d reads of rows from the file for %d queries", st.readAts.Load(), len(queries))
	}
	if coded.cur.Load().idMap.build == nil {
		t.Fatal("the id map was built before a write or GetItem needed it")
	}
	runs := coded.cur.Load().quantCodes().int4.Runs()
	if len(runs) != 1 || !runs[0].Sealed || len(runs[0].Inv) != n {
		t.Fatalf("codes after the open: %d runs, the first sealed %v", len(runs), len(runs) > 0 && runs[0].Sealed)
	}
	// Rows added after the segment's are coded on its grid.
	added := insertRandom(t, coded, rand.New(rand.NewPCG(14, 14)), "j", 10, d)
	runs = coded.cur.Load().quantCodes().int4.Runs()
	if len(runs) != 2 || runs[1].Grid != runs[0].Grid || runs[1].Sealed {
		t.Fatalf("codes after an insert: %d runs", len(runs))
	}
	res, err := coded.QueryItems(ctx, added[4].Vector, "", 1, nil, false)
	if err != nil || len(res) != 1 || res[0].Item.ID != "j4" || math.Abs(res[0].Score-1) > 1e-6 {
		t.Fatalf("the added row: %v %v", res, err)
	}
	// A damaged vector byte: only a reader of the vectors checks them.
	name := idxTestFolder + "/" + coded.seg.man.Segments[0].Name
	raw, err := st.ReadFile(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	raw[segHeaderLen+11] ^= 0x40
	st.put(name, raw)
	if _, err := open(int4).QueryItems(ctx, queries[1], "", 3, nil, false); err != nil {
		t.Fatalf("4-bit open of a segment with a damaged vector byte: %v", err)
	}
	if _, err := open(IndexOptions{Storage: st, Codec: jsonTestCodec{}}).QueryItems(ctx, queries[1], "", 3, nil, false); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("exact open of a segment with a damaged vector byte: %v, want ErrCorrupt", err)
	}
	// A row that cannot be read fails the query with the read's error; an
	// item handed out is copied from the mapping instead.
	failed := errors.New("the disk is gone")
	st.readErr.Store(&failed)
	if _, err := coded.QueryItems(ctx, queries[2], "", 10, nil, false); !errors.Is(err, failed) {
		t.Fatalf("a query whose rows cannot be read: %v, want the read's error", err)
	}
	if it, ok, err := coded.GetItem(ctx, "i5"); err != nil || !ok || !slices.Equal(it.Vector, items[5].Vector) {
		t.Fatalf("GetItem with rows that cannot be read: %v %v", ok, err)
	}
}
