package scan

import (
	"context"
	"errors"
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
		p := Part{N: min(lo+h/3+1, h) - lo, Vals: slices.Clone(rows.Arena[lo*d : min(lo+h/3+1, h)*d])}
		if len(split.Head)%2 == 1 {
			from := slices.Clone(p.Vals)
			p.Fetch = func(_ context.Context, dst []float32, first, count int) error {
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
				if err := split.ReadVector(context.Background(), v, i); err != nil {
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
					quant, err := QuantTopK(ctx, split, sel, q, k, 4, quantize(split, n, nil))
					if err != nil {
						t.Fatal(err)
					}
					wantQuant, err := QuantTopK(ctx, whole, sel, q, k, 4, quantize(whole, n, nil))
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(quant, wantQuant) {
						t.Fatalf("n %d head %d %s k %d: QuantTopK differs at rank %d", n, h, name, k, firstDiff(slotsOf(quant), slotsOf(wantQuant)))
					}
					nib, err := NibbleTopK(ctx, split, sel, q, k, 4, quantizeNibbles(split, n, nil), nil)
					if err != nil {
						t.Fatal(err)
					}
					wantNib, err := NibbleTopK(ctx, whole, sel, q, k, 4, quantizeNibbles(whole, n, nil), nil)
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

// fetchOnly is rows with its first h rows in fetch-only parts (no Vals:
// read through Fetch from a copy, or failing with fail once it is set).
func fetchOnly(rows *Rows, h int, fail *error) *Rows {
	d := rows.Dim
	out := &Rows{Scale: rows.Scale, Dim: d, Arena: slices.Clone(rows.Arena[h*d:])}
	for lo := 0; lo < h; lo += h/2 + 1 {
		n := min(lo+h/2+1, h) - lo
		from := slices.Clone(rows.Arena[lo*d : (lo+n)*d])
		out.Head = append(out.Head, Part{N: n, Fetch: func(_ context.Context, dst []float32, first, count int) error {
			if *fail != nil {
				return *fail
			}
			copy(dst, from[first*d:(first+count)*d])
			return nil
		}})
	}
	return out
}

// Rows only read through Fetch answer the 4-bit scans as the same rows
// in memory do, the scans that would score every row exactly too
// (re-ranking every row instead), and code the same codes; the exact
// scans refuse them, and a failed read fails the query or the coding.
func TestFetchOnlyRowsAnswerAsRowsInMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const n, d = 700, 16
	ctx := context.Background()
	whole, meta := rowsOf(r, n, d)
	var fail error
	fetched := fetchOnly(whole, 500, &fail)
	if !fetched.FetchOnly() || fetched.Vector(3) != nil || fetched.HeadRows() != 500 {
		t.Fatal("fetch-only rows are held in memory")
	}
	for _, i := range []int{0, 499, 500, n - 1} {
		v := make([]float32, d)
		if err := fetched.ReadVector(ctx, v, i); err != nil || !slices.Equal(v, whole.Vector(i)) {
			t.Fatalf("ReadVector(%d) = %v, %v", i, v, err)
		}
	}
	codes, want := quantizeNibbles(fetched, n, nil), quantizeNibbles(whole, n, nil)
	if !slices.Equal(codes.runs[0].Codes, want.runs[0].Codes) {
		t.Fatal("4-bit codes of fetched rows differ from those of the rows in memory")
	}
	int8s := quantize(fetched, n, nil)
	if !slices.Equal(int8s.codes, quantize(whole, n, nil).codes) {
		t.Fatal("int8 codes of fetched rows differ from those of the rows in memory")
	}
	match, _, err := filter.Compile(map[string]any{"even": true})
	if err != nil {
		t.Fatal(err)
	}
	q := make([]float32, d)
	for j := range q {
		q[j] = float32(r.NormFloat64())
	}
	for name, sel := range map[string]Selection[map[string]any]{
		"all":        {Meta: meta, All: true},
		"filtered":   {Meta: meta, Match: match},
		"candidates": {Meta: meta, Match: match, Cands: []int32{0, 1, 499, 500, n - 1}},
	} {
		for _, k := range []int{1, 10, n} {
			for _, narrow := range []*Narrowing{nil, {Codes: int8s, Factor: 8}} {
				got, err := NibbleTopK(ctx, fetched, sel, q, k, 4, codes, narrow)
				if err != nil {
					t.Fatal(err)
				}
				wantK, err := NibbleTopK(ctx, whole, sel, q, k, 4, want, narrow)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, wantK) {
					t.Fatalf("%s k %d narrowed %v: NibbleTopK differs at rank %d", name, k, narrow != nil, firstDiff(slotsOf(got), slotsOf(wantK)))
				}
			}
		}
	}
	zero := make([]float32, d)
	qs, ks := [][]float32{q, zero, q}, []int{10, 3, n}
	got, err := NibbleBatch(ctx, fetched, n, qs, ks, 4, codes, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantB, err := NibbleBatch(ctx, whole, n, qs, ks, 4, want, nil)
	if err != nil {
		t.Fatal(err)
	}
	for j := range got {
		if !slices.Equal(got[j], wantB[j]) {
			t.Fatalf("NibbleBatch query %d differs at rank %d", j, firstDiff(slotsOf(got[j]), slotsOf(wantB[j])))
		}
	}
	if _, err := TopK(ctx, fetched, Selection[map[string]any]{Meta: meta, All: true}, q, 5); !errors.Is(err, errFetchOnly) {
		t.Fatalf("TopK of fetch-only rows: %v", err)
	}
	if _, err := Batch(ctx, fetched, n, [][]float32{q}, []int{5}); !errors.Is(err, errFetchOnly) {
		t.Fatalf("Batch of fetch-only rows: %v", err)
	}
	fail = errors.New("gone")
	if _, err := NibbleTopK(ctx, fetched, Selection[map[string]any]{Meta: meta, All: true}, q, 10, 4, codes, nil); !errors.Is(err, fail) {
		t.Fatalf("NibbleTopK with rows that cannot be read: %v", err)
	}
	if _, err := Quantize(ctx, fetched, n, nil); !errors.Is(err, fail) {
		t.Fatalf("Quantize with rows that cannot be read: %v", err)
	}
	if _, err := QuantizeNibbles(ctx, fetched, n, nil); !errors.Is(err, fail) {
		t.Fatalf("QuantizeNibbles with rows that cannot be read: %v", err)
	}
}
