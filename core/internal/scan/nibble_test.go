package scan

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/foliovec/folio/core/internal/filter"
	"github.com/foliovec/folio/core/internal/topk"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// A row's 4-bit score is its dot product with the query up to the grid's
// rounding: at most half a step a dimension, plus the rounding of the
// query's weights.
func TestNibbleScoresBoundTheDotProduct(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n, d = 500, 100
	rows, _ := rowsOf(r, n, d)
	codes := quantizeNibbles(rows, n, nil)
	g := codes.runs[0].Grid
	q := make([]float32, d)
	for j := range q {
		q[j] = float32(r.NormFloat64())
	}
	nq := prepareNibbles(q, g, vecmath.NibbleDims(d))
	out := make([]int32, n)
	vecmath.DotNibbleMany(nq.w, codes.runs[0].Codes, out)
	var bound float64
	for j, x := range q {
		bound += math.Abs(float64(x)) * float64(g.Step[j]) / 2
	}
	bound += 15 * nq.scale / 2 * d // each weight off by half its unit, times a code of at most 15
	for i := range n {
		v := rows.Vector(i)
		clamped := 0.0 // how far clamping to the grid moved the row
		for j, x := range v {
			lo, hi := float64(g.Lo[j]), float64(g.Lo[j])+15*float64(g.Step[j])
			clamped += math.Abs(float64(q[j])) * (max(0, lo-float64(x)) + max(0, float64(x)-hi))
		}
		got := nq.base + nq.scale*float64(out[i])
		if want := vecmath.Dot64(q, v); math.Abs(got-want) > bound+clamped+1e-9 {
			t.Fatalf("row %d: 4-bit score %.4f, dot product %.4f, bound %.4f", i, got, want, bound+clamped)
		}
	}
}

// NibbleTopK re-ranking all but a few rows answers as TopK does, filtered
// or not, on one worker or several, on rows appended to base codes, and
// with an int8 stage that narrows all but a few more.
func TestNibbleTopKAgreesWithTopK(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const d = 40
	ctx := context.Background()
	for _, n := range []int{300, 3 * MinRowsPerWorker} {
		rows, meta := rowsOf(r, n, d)
		match, _, err := filter.Compile(map[string]any{"even": true})
		if err != nil {
			t.Fatal(err)
		}
		whole := quantizeNibbles(rows, n, nil)
		grown := quantizeNibbles(rows, n, quantizeNibbles(rows, n*2/3, nil))
		if got := len(grown.runs); got != 1 || grown.rows != n {
			t.Fatalf("n %d: codes grown from two thirds have %d runs of %d rows, want 1 of %d", n, got, grown.rows, n)
		}
		sealed := NewNibbles(d, []NibbleRun{{Grid: whole.runs[0].Grid, Codes: whole.runs[0].Codes[:n/2*whole.stride], Inv: whole.runs[0].Inv[:n/2], Sealed: true}})
		afterSealed := quantizeNibbles(rows, n, sealed)
		if len(afterSealed.runs) != 2 || afterSealed.runs[1].Grid != whole.runs[0].Grid || len(afterSealed.runs[1].Inv) != n-n/2 {
			t.Fatalf("n %d: rows after a sealed run: %d runs", n, len(afterSealed.runs))
		}
		if !slices.Equal(afterSealed.runs[1].Codes, whole.runs[0].Codes[n/2*whole.stride:]) {
			t.Fatalf("n %d: rows after a sealed run are not coded on its grid", n)
		}
		sels := map[string]Selection[map[string]any]{
			"all":      {Meta: meta, All: true},
			"filtered": {Meta: meta, Match: match},
		}
		for name, sel := range sels {
			for _, k := range []int{1, 10} {
				q := make([]float32, d)
				for j := range q {
					q[j] = float32(r.NormFloat64())
				}
				want, err := TopK(ctx, rows, sel, q, k)
				if err != nil {
					t.Fatal(err)
				}
				factor := (n - 20) / k // all but the 20 rows the 4-bit pass ranks last
				narrow := &Narrowing{Codes: quantize(rows, n, nil), Factor: factor}
				for cname, codes := range map[string]*Nibbles{"whole": whole, "grown": grown, "after sealed": afterSealed} {
					got, err := NibbleTopK(ctx, rows, sel, q, k, factor, codes, nil)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("n %d %s k %d %s codes: NibbleTopK differs from TopK at rank %d", n, name, k, cname, firstDiff(slotsOf(got), slotsOf(want)))
					}
					// int8 keeps all but 20 more.
					got, err = NibbleTopK(ctx, rows, sel, q, k, (n-40)/k, codes, narrow)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("n %d %s k %d %s codes, narrowed: NibbleTopK differs from TopK at rank %d", n, name, k, cname, firstDiff(slotsOf(got), slotsOf(want)))
					}
				}
			}
		}
	}
}

// Codes measured on few rows are measured again once the rows double, and
// a zero-variance dimension codes as zero.
func TestNibbleGridFollowsTheRows(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	rows, _ := rowsOf(r, 1000, 8)
	small := quantizeNibbles(rows, 10, nil)
	if got := small.runs[0].Grid.From; got != 10 {
		t.Fatalf("grid measured on %d rows, want 10", got)
	}
	if got := quantizeNibbles(rows, 15, small).runs[0].Grid; got != small.runs[0].Grid {
		t.Fatal("15 rows: the grid of 10 was measured again")
	}
	if got := quantizeNibbles(rows, 30, small).runs[0].Grid.From; got != 30 {
		t.Fatalf("30 rows: grid measured on %d rows, want 30", got)
	}
	flat := &Rows{Dim: 2, Arena: []float32{1, 3, 1, -3, 1, 0}, Scale: []float64{1, 1, 1}}
	c := quantizeNibbles(flat, 3, nil)
	for i := range 3 {
		if got := vecmath.Nibble(c.runs[0].Codes[i*c.stride:], 0); got != 0 {
			t.Fatalf("row %d: constant dimension coded %d", i, got)
		}
	}
}

// With an int8 stage the exact re-rank reads k·factor rows, not the
// k·narrow.Factor the 4-bit pass keeps, alone or in a batch, and a batch
// answers as each query alone does. Narrowing codes that do not cover
// the rows are not used.
func TestNarrowingReranksFewerRows(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const n, d, k = 3000, 32, 10
	ctx := context.Background()
	whole, meta := rowsOf(r, n, d)
	var fetched atomic.Int64 // Fetch runs on several goroutines
	rows := &Rows{Scale: whole.Scale, Dim: d, Head: []Part{{N: n, Vals: whole.Arena, Fetch: func(_ context.Context, dst []float32, first, count int) error {
		fetched.Add(int64(count))
		copy(dst, whole.Arena[first*d:(first+count)*d])
		return nil
	}}}}
	codes := quantizeNibbles(rows, n, nil)
	// Gaussian rows of 32 values: a few lie far outside the grid, and are
	// re-ranked whatever the codes say (TestOutliersAreScoredExactly).
	if codes.Outliers() == 0 {
		t.Fatal("no outliers: the data no longer has any, fix the test")
	}
	codes.runs[0].Outliers = nil
	sel := Selection[map[string]any]{Meta: meta, All: true}
	q := make([]float32, d)
	for j := range q {
		q[j] = float32(r.NormFloat64())
	}
	for _, tc := range []struct {
		name   string
		narrow *Narrowing
		want   int
	}{
		{"no int8 stage", nil, 5 * k},
		{"int8 stage", &Narrowing{Codes: quantize(rows, n, nil), Factor: 50}, 5 * k},
		{"int8 codes of fewer rows", &Narrowing{Codes: quantize(rows, n-1, nil), Factor: 50}, 5 * k},
	} {
		fetched.Store(0)
		alone, err := NibbleTopK(ctx, rows, sel, q, k, 5, codes, tc.narrow)
		if err != nil {
			t.Fatal(err)
		}
		if got := int(fetched.Load()); got != tc.want {
			t.Fatalf("%s: %d rows re-ranked, want %d", tc.name, got, tc.want)
		}
		fetched.Store(0)
		batch, err := NibbleBatch(ctx, rows, n, [][]float32{q, q}, []int{k, k}, 5, codes, tc.narrow)
		if err != nil {
			t.Fatal(err)
		}
		if got := int(fetched.Load()); got != 2*tc.want || !slices.Equal(batch[0], alone) || !slices.Equal(batch[1], alone) {
			t.Fatalf("%s: the batch re-ranked %d rows, want %d, and answers as alone: %v", tc.name, got, 2*tc.want, slices.Equal(batch[0], alone))
		}
	}
	// The int8 stage sees ten times the 4-bit candidates: its top 10 holds
	// at least what the 4-bit pass alone keeps of the exact top 10.
	want, _ := TopK(ctx, rows, sel, q, k)
	plain, _ := NibbleTopK(ctx, rows, sel, q, k, 5, codes, nil)
	narrowed, _ := NibbleTopK(ctx, rows, sel, q, k, 5, codes, &Narrowing{Codes: quantize(rows, n, nil), Factor: 50})
	if hits(narrowed, want) < hits(plain, want) {
		t.Fatalf("recall@10: %d with the int8 stage, %d without", hits(narrowed, want), hits(plain, want))
	}
}

// hits counts the slots of got that are in want.
func hits(got, want []topk.Scored) int {
	n := 0
	for _, g := range got {
		if slices.ContainsFunc(want, func(w topk.Scored) bool { return w.Slot == g.Slot }) {
			n++
		}
	}
	return n
}

// Rows far outside the grid are listed as outliers and scored exactly by
// every query, alone or in a batch, whatever their codes say: rows 1,000
// times longer than the rest, pointing away from the query (no 4-bit pass
// would pick them), are re-ranked on top of the k·factor candidates, a
// query equal to one finds it, and the grid stays the one measured
// without them. A filter keeps the outliers it does not select out.
func TestOutliersAreScoredExactly(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const n, d, k, factor = 3000, 64, 10, 5
	ctx := context.Background()
	whole, meta := rowsOf(r, n, d)
	q := make([]float32, d)
	for j := range q {
		q[j] = float32(r.NormFloat64())
	}
	plain := quantizeNibbles(whole, n, nil)
	far := []int{100, 1000, 2999}
	for _, i := range far {
		for j := range d {
			whole.Arena[i*d+j] = -1000 * q[j] * float32(1+r.Float64())
		}
		whole.Scale[i] = vecmath.FastScale(whole.Vector(i))
	}
	var fetched atomic.Int64
	rows := &Rows{Scale: whole.Scale, Dim: d, Head: []Part{{N: n, Vals: whole.Arena, Fetch: func(_ context.Context, dst []float32, first, count int) error {
		fetched.Add(int64(count))
		copy(dst, whole.Arena[first*d:(first+count)*d])
		return nil
	}}}}
	codes := quantizeNibbles(rows, n, nil)
	for j := range d {
		g, p := codes.runs[0].Grid, plain.runs[0].Grid
		if math.Abs(float64(g.Lo[j]-p.Lo[j])) > float64(p.Step[j]) || math.Abs(float64(g.Step[j]/p.Step[j]-1)) > 0.05 {
			t.Fatalf("dimension %d: the long rows moved the grid from %v+%v·code to %v+%v·code", j, p.Lo[j], p.Step[j], g.Lo[j], g.Step[j])
		}
	}
	for _, i := range far {
		if _, found := slices.BinarySearch(codes.runs[0].Outliers, int32(i)); !found {
			t.Fatalf("row %d is not listed among the outliers %v", i, codes.runs[0].Outliers)
		}
	}
	listed := codes.Outliers()
	sel := Selection[map[string]any]{Meta: meta, All: true}
	fetched.Store(0)
	alone, err := NibbleTopK(ctx, rows, sel, q, k, factor, codes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := int(fetched.Load()); got < factor*k+len(far) || got > factor*k+listed {
		t.Fatalf("%d rows re-ranked, want %d candidates and the %d outliers they lack", got, factor*k, listed)
	}
	batch, err := NibbleBatch(ctx, rows, n, [][]float32{q}, []int{k}, factor, codes, nil)
	if err != nil || !slices.Equal(batch[0], alone) {
		t.Fatalf("the batch answers otherwise: %v", err)
	}
	for _, i := range far {
		got, err := NibbleTopK(ctx, rows, sel, rows.Vector(i), 1, factor, codes, nil)
		if err != nil || len(got) != 1 || got[0].Slot != int32(i) {
			t.Fatalf("a query equal to row %d: %v %v", i, got, err)
		}
	}
	even := Selection[map[string]any]{Meta: meta, Match: func(m map[string]any) bool { return m["even"] == true }}
	for _, i := range far {
		got, err := NibbleTopK(ctx, rows, even, rows.Vector(i), 1, factor, codes, nil)
		if err != nil || len(got) != 1 || (got[0].Slot == int32(i)) != (i%2 == 0) {
			t.Fatalf("a query equal to row %d, even rows only: %v %v", i, got, err)
		}
	}
}
