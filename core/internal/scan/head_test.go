package scan

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/foliovec/folio/core/internal/filter"
)

// headSplit is rows with its first h rows moved to Head (own memory), in
// parts of at most h/3+1 rows, every other one read through Fetch, and
// the rest left in Arena.
func headSplit(rows *Rows, h int) *Rows {
	d := rows.Dim
	split := &Rows{Scale: rows.Scale, Dim: d, Arena: slices.Clone(rows.Arena[h*d:])}
	for lo := 0; lo < h; lo += h/3 + 1 {
		p := Part{Vals: slices.Clone(rows.Arena[lo*d : min(lo+h/3+1, h)*d])}
		if len(split.Head)%2 == 1 {
			from := slices.Clone(p.Vals)
			p.Fetch = func(dst []float32, first, count int) error {
				copy(dst, from[first*d:(first+count)*d])
				return nil
			}
		}
		split.Head = append(split.Head, p)
	}
	return split
}

// Rows whose first ones are in Head, in parts, answer every scan exactly
// as the same rows in one arena do, wherever the ends of the parts fall in
// a block.
func TestHeadAndArenaScanAsOneArena(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const d = 20
	ctx := context.Background()
	match, _, err := filter.Compile(map[string]any{"even": true})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 700, 3 * MinRowsPerWorker} {
		whole, meta := rowsOf(r, n, d)
		for _, h := range []int{1, n / 3, block + 1, n - 1} {
			if h <= 0 || h >= n {
				continue
			}
			split := headSplit(whole, h)
			for i := range n {
				v := make([]float32, d)
				if err := split.ReadVector(v, i); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(split.Vector(i), whole.Vector(i)) || !slices.Equal(v, whole.Vector(i)) {
					t.Fatalf("n %d head %d: row %d differs", n, h, i)
				}
			}
			sels := map[string]Selection[map[string]any]{
				"all":        {Meta: meta, All: true},
				"filtered":   {Meta: meta, Match: match},
				"candidates": {Meta: meta, Match: match, Cands: []int32{0, int32(h - 1), int32(h), int32(n - 1)}},
			}
			q := make([]float32, d)
			for j := range q {
				q[j] = float32(r.NormFloat64())
			}
			for name, sel := range sels {
				for _, k := range []int{1, 10, n} {
					want, err := TopK(ctx, whole, sel, q, k)
					if err != nil {
						t.Fatal(err)
					}
					got, err := TopK(ctx, split, sel, q, k)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("n %d head %d %s k %d: TopK differs at rank %d", n, h, name, k, firstDiff(slotsOf(got), slotsOf(want)))
					}
					quant, err := QuantTopK(ctx, split, sel, q, k, 4, Quantize(split, n, nil))
					if err != nil {
						t.Fatal(err)
					}
					wantQuant, err := QuantTopK(ctx, whole, sel, q, k, 4, Quantize(whole, n, nil))
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(quant, wantQuant) {
						t.Fatalf("n %d head %d %s k %d: QuantTopK differs at rank %d", n, h, name, k, firstDiff(slotsOf(quant), slotsOf(wantQuant)))
					}
					nib, err := NibbleTopK(ctx, split, sel, q, k, 4, QuantizeNibbles(split, n, nil), nil)
					if err != nil {
						t.Fatal(err)
					}
					wantNib, err := NibbleTopK(ctx, whole, sel, q, k, 4, QuantizeNibbles(whole, n, nil), nil)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(nib, wantNib) {
						t.Fatalf("n %d head %d %s k %d: NibbleTopK differs at rank %d", n, h, name, k, firstDiff(slotsOf(nib), slotsOf(wantNib)))
					}
				}
			}
			batch, err := Batch(ctx, split, n, [][]float32{q, q, q, q, q}, []int{1, 3, 10, n, 2})
			if err != nil {
				t.Fatal(err)
			}
			wantBatch, err := Batch(ctx, whole, n, [][]float32{q, q, q, q, q}, []int{1, 3, 10, n, 2})
			if err != nil {
				t.Fatal(err)
			}
			for i := range batch {
				if !slices.Equal(batch[i], wantBatch[i]) {
					t.Fatalf("n %d head %d: Batch query %d differs", n, h, i)
				}
			}
			var shared Shared
			sh, err := shared.TopK(ctx, split, n, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := TopK(ctx, whole, Selection[map[string]any]{Meta: meta, All: true}, q, 10)
			if !slices.Equal(sh, want) {
				t.Fatalf("n %d head %d: Shared.TopK differs", n, h)
			}
		}
	}
}
