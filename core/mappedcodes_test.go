package core

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/foliovec/folio/core/internal/segfile"
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
	open := func(opts IndexOptions) *LocalIndex { return openTestIndex(t, opts) }
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
	name := idxTestFolder + "/" + coded.lay.(*segLayout).man.Segments[0].Name
	raw, err := st.ReadFile(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	raw[segfile.HeaderLen+11] ^= 0x40
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

// Every large segment is read in place, not only the first: an index
// whose writes left two large segments and a small one maps the two,
// reads the small one, takes the 4-bit codes of both mapped segments from
// their files, and answers as the exact scan over resident vectors does;
// with int8 codes too, it codes them from rows read from the files. A
// compaction then releases the pages of both old mappings.
func TestEveryLargeSegmentIsMapped(t *testing.T) {
	ctx := context.Background()
	st := &mappingTestStorage{memTestStorage: newMemTestStorage()}
	int4 := IndexOptions{Storage: st, Codec: jsonTestCodec{}, ScanCodes: CodesInt4, RetainDropped: -1}
	const n, d = 1500, 24
	_, items := threeSegments(t, int4, 15, n, d)
	open := func(opts IndexOptions) *LocalIndex { return openTestIndex(t, opts) }
	coded := open(int4)
	both := int4
	both.ScanCodes = CodesInt4Int8
	narrowed := open(both)
	mapped := open(IndexOptions{Storage: st, Codec: jsonTestCodec{}})
	resident := open(IndexOptions{Storage: st, Codec: jsonTestCodec{}, ResidentVectors: true})
	queries := append([][]float32{items[7].Vector, items[n+7].Vector, items[2*n+3].Vector}, gaussianUnitVectors(18, 20, d)...)
	for _, q := range queries {
		want, err := resident.QueryItems(ctx, q, "", 10, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		for name, ix := range map[string]*LocalIndex{"4-bit": coded, "4-bit and int8": narrowed, "mapped": mapped} {
			got, err := ix.QueryItems(ctx, q, "", 10, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			sameResults(t, name+" over two mapped segments", got, want)
		}
	}
	if st.maps.Load() != 6 {
		t.Fatalf("%d mappings, want the two large segments mapped by each of three indexes", st.maps.Load())
	}
	if c := narrowed.cur.Load().quantCodes(); c == nil || c.int8 == nil || c.int8.Rows() != 2*n+10 || c.int4 == nil {
		t.Fatal("the index keeping 4-bit and int8 codes lacks one of them")
	}
	for name, ix := range map[string]*LocalIndex{"4-bit": coded, "4-bit and int8": narrowed, "mapped": mapped} {
		if s := ix.cur.Load(); len(s.Head) != 2 || s.HeadRows() != 2*n {
			t.Fatalf("%s: %d parts of %d rows read in place, want 2 of %d", name, len(s.Head), s.HeadRows(), 2*n)
		}
		for _, id := range []string{"a3", "b3", "c3"} {
			it, ok, err := ix.GetItem(ctx, id)
			if err != nil || !ok || !slices.Equal(it.Vector, items[slices.IndexFunc(items, func(it IndexItem) bool { return it.ID == id })].Vector) {
				t.Fatalf("%s: GetItem(%s) = %v, %v", name, id, ok, err)
			}
		}
	}
	runs := coded.cur.Load().quantCodes().int4.Runs()
	if len(runs) != 3 || !runs[0].Sealed || !runs[1].Sealed || len(runs[0].Inv) != n || len(runs[1].Inv) != n || runs[2].Grid != runs[1].Grid {
		t.Fatalf("codes after the open: %d runs, want the two segments' (sealed) and one on the last one's grid", len(runs))
	}
	if rep, err := coded.Compact(ctx); err != nil || rep.Segments != 3 {
		t.Fatalf("Compact = %+v, %v", rep, err)
	}
	if st.released.Load() != 2 {
		t.Fatalf("%d releases of the old mappings' pages, want 2", st.released.Load())
	}
	if s := coded.cur.Load(); len(s.Head) != 1 || s.HeadRows() != 2*n+10 {
		t.Fatalf("after Compact: %d parts of %d rows read in place, want 1 of %d", len(s.Head), s.HeadRows(), 2*n+10)
	}
}
