package core

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"testing"

	"github.com/foliovec/folio/core/internal/segfile"
)

// outlierSet is 20,004 clustered unit vectors and, after them, count
// vectors of random direction scaled by scale: finite, accepted by every
// write, and far outside every other row's range.
func outlierSet(count int, scale float64) [][]float32 {
	vecs := clusteredUnitVectors(41, 20_004, 384, 50, 0.5)
	for i, v := range gaussianUnitVectors(42, count, 384) {
		out := make([]float32, len(v))
		for j, x := range v {
			out[j] = float32(float64(x) * scale * float64(1+i%3))
		}
		vecs = append(vecs, out)
	}
	return vecs
}

// Rows far outside the rest cannot ruin the codes of the others: with 1,
// 10 and 1,000 outliers of magnitude 1e4 to 1e30, the 4-bit scans keep
// recall@10 at 0.99 or more (they fell to 0.02–0.48), a query equal to a
// stored vector (an outlier too) finds it first with score 1, and the
// outliers are counted; int8 codes, which scale each row on its own, keep
// the recall and count no outlier.
func TestOutliersDoNotRuinTheCodes(t *testing.T) {
	ctx := context.Background()
	queries := clusteredUnitVectors(43, 60, 384, 50, 0.5)
	for _, count := range []int{1, 10, 1000} {
		for _, scale := range []float64{1e4, 1e6, 1e30} {
			t.Run(fmt.Sprintf("%d×%g", count, scale), func(t *testing.T) {
				vecs := outlierSet(count, scale)
				// One snapshot coded both ways serves the three kinds of
				// index (an int4 index ignores the int8 codes).
				both, exact := quantTestIndexes(t, CodesInt4Int8, vecs, 0, nil)
				kinds := map[ScanCodes]*LocalIndex{CodesInt4Int8: both, CodesInt4: indexOver(t, both, CodesInt4)}
				if count == 1000 && scale == 1e30 {
					int8, _ := quantTestIndexes(t, CodesInt8, vecs, 0, nil)
					kinds[CodesInt8] = int8
				}
				for kind, quant := range kinds {
					if got := recallAt10(t, quant, exact, queries, nil); got < 0.99 {
						t.Errorf("%s: recall@10 = %.4f, want >= 0.99", kind, got)
					}
					for _, i := range []int{7, len(vecs) - 1} {
						res, err := quant.QueryItems(ctx, vecs[i], "", 10, nil, false)
						if err != nil {
							t.Fatal(err)
						}
						want := fmt.Sprintf("item-%06d", i)
						if len(res) == 0 || res[0].Item.ID != want || math.Abs(res[0].Score-1) > 1e-5 {
							t.Errorf("%s: query equal to row %d: %v, want %s first with score 1", kind, i, resultIDs(res), want)
						}
					}
					stats, err := quant.GetIndexStats(ctx)
					if err != nil {
						t.Fatal(err)
					}
					want := count
					if !kind.nibbles() {
						want = 0
					}
					if stats.Outliers != want {
						t.Errorf("%s: %d outlier rows counted, want %d", kind, stats.Outliers, want)
					}
				}
			})
		}
	}
}

// indexOver returns an index scanning with kind over the loaded state of
// ix, which holds the codes kind needs.
func indexOver(t *testing.T, ix *LocalIndex, kind ScanCodes) *LocalIndex {
	t.Helper()
	out, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: newMemTestStorage(), Codec: jsonTestCodec{}, ScanCodes: kind})
	if err != nil {
		t.Fatal(err)
	}
	out.cur.Store(ix.cur.Load())
	return out
}

// The outliers of a segment's codes are written into it and read back: a
// compacted 4-bit index over a mapping reads its codes and outlier list
// from the segment, answers as the exact scan does, and GetIndexStats
// counts the outliers; a segment whose list names a row twice, or one
// past its rows, is ErrCorrupt.
func TestSegmentsKeepTheirOutliers(t *testing.T) {
	ctx := context.Background()
	st := &mappingTestStorage{memTestStorage: newMemTestStorage()}
	int4 := IndexOptions{Storage: st, Codec: jsonTestCodec{}, ScanCodes: CodesInt4, RetainDropped: -1}
	const d, count = 64, 10
	vecs := clusteredUnitVectors(44, 3000, d, 20, 0.5)
	for i, v := range gaussianUnitVectors(45, count, d) {
		out := make([]float32, d)
		for j, x := range v {
			out[j] = x * 1e6 * float32(1+i)
		}
		vecs = append(vecs, out)
	}
	w := newSegmentedIndex(t, int4)
	items := make([]IndexItem, len(vecs))
	for i, v := range vecs {
		items[i] = IndexItem{ID: fmt.Sprintf("item-%06d", i), Vector: v}
	}
	if _, err := w.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	coded := openTestIndex(t, int4)
	exact := openTestIndex(t, IndexOptions{Storage: st, Codec: jsonTestCodec{}})
	stats, err := coded.GetIndexStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Outliers != count {
		t.Fatalf("GetIndexStats: %d outliers, want %d", stats.Outliers, count)
	}
	runs := coded.cur.Load().quantCodes().int4.Runs()
	if len(runs) != 1 || !runs[0].Sealed || len(runs[0].Outliers) != count {
		t.Fatalf("the codes are not the segment's own: %d runs", len(runs))
	}
	queries := append(clusteredUnitVectors(46, 30, d, 20, 0.5), vecs[len(vecs)-1], vecs[len(vecs)-5])
	if got := recallAt10(t, coded, exact, queries, nil); got < 0.99 {
		t.Fatalf("recall@10 %.4f, want >= 0.99", got)
	}
	for _, i := range []int{len(vecs) - 1, len(vecs) - 5} {
		res, err := coded.QueryItems(ctx, vecs[i], "", 1, nil, false)
		if err != nil || len(res) != 1 || res[0].Item.ID != items[i].ID {
			t.Fatalf("a query equal to outlier %d: %v %v", i, resultIDs(res), err)
		}
	}
	// A damaged list: the checksum is made right again, so only the
	// list's own check can tell.
	name := idxTestFolder + "/" + coded.lay.(*segLayout).man.Segments[0].Name
	raw, err := st.ReadFile(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	h, err := segfile.ParseHeader(raw[:segfile.HeaderLen], int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	_, codesAt, _ := h.Layout()
	listAt := codesAt + segfile.CodesLen(segfile.CodesNibbles, h.Rows, d)
	for _, bad := range []struct {
		name string
		at   int64
		val  uint32
	}{
		{"a row past the segment's", listAt + 8, uint32(h.Rows)},
		{"a row twice", listAt + 12, binary.LittleEndian.Uint32(raw[listAt+8:])},
		{"more rows than the list holds", listAt, 1 << 20},
	} {
		broken := slices.Clone(raw)
		binary.LittleEndian.PutUint32(broken[bad.at:], bad.val)
		resum(broken)
		st.put(name, broken)
		for _, opts := range []IndexOptions{int4, {Storage: st, Codec: jsonTestCodec{}}} {
			if _, err := openTestIndex(t, opts).GetIndexStats(ctx); !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s: %v, want ErrCorrupt", bad.name, err)
			}
		}
	}
}

// resum writes the checksums of a format-2 segment again, after a test
// changed its bytes.
func resum(b []byte) {
	h, _ := segfile.ParseHeader(b[:segfile.HeaderLen], int64(len(b)))
	vecEnd := segfile.HeaderLen + h.Rows*int(h.Dim)*4
	tail := len(b) - segfile.TrailerLen
	binary.LittleEndian.PutUint32(b[tail:], crc32.Checksum(b[segfile.HeaderLen:vecEnd], segfile.Table))
	rest := crc32.New(segfile.Table)
	rest.Write(b[:segfile.HeaderLen])
	rest.Write(b[vecEnd:tail])
	binary.LittleEndian.PutUint32(b[tail+4:], rest.Sum32())
}
