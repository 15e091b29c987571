package scan

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/foliovec/folio/core/internal/filter"
	"github.com/foliovec/folio/core/internal/topk"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// rowsOf is n random rows of dimension d, with some zero rows, and their
// metadata: "even" true for even rows.
func rowsOf(r *rand.Rand, n, d int) (*Rows, []map[string]any) {
	rows := &Rows{Dim: d, Arena: make([]float32, n*d), Scale: make([]float64, n)}
	meta := make([]map[string]any, n)
	for i := range n {
		if i%17 != 5 {
			for j := range d {
				rows.Arena[i*d+j] = float32(r.NormFloat64())
			}
		}
		rows.Scale[i] = vecmath.FastScale(rows.Vector(i))
		meta[i] = map[string]any{"even": i%2 == 0}
	}
	return rows, meta
}

// bruteTopK scores every selected row one by one in float64 and ranks
// them: TopK must give the same scores, rank by rank, up to the float32
// rounding of its dot products.
func bruteTopK(rows *Rows, sel Selection[map[string]any], q []float32, k int) []float64 {
	type hit struct {
		key  float64
		slot int32
	}
	var all []hit
	qn := vecmath.Length(q)
	sel.Each(func(slot int32) {
		key := topk.Undefined
		if sc := rows.Scale[slot]; sc != 0 && qn != 0 {
			key = vecmath.Dot64(q, rows.Vector(int(slot))) / (qn * sc)
		}
		all = append(all, hit{key, slot})
	})
	slices.SortStableFunc(all, func(a, b hit) int { return cmp.Compare(b.key, a.key) })
	var out []float64
	for _, h := range all[:min(k, len(all))] {
		out = append(out, h.key)
	}
	return out
}

// sameScores reports the first rank where got's scores leave want's by
// more than float32 rounding, or -1.
func sameScores(got []topk.Scored, want []float64) int {
	if len(got) != len(want) {
		return min(len(got), len(want))
	}
	for i, h := range got {
		if math.Abs(h.Key-want[i]) > 1e-5 {
			return i
		}
	}
	return -1
}

func slotsOf(hits []topk.Scored) []int32 {
	out := make([]int32, len(hits))
	for i, h := range hits {
		out[i] = h.Slot
	}
	return out
}

// TopK, filtered or not, on one worker or several, ranks as a float64
// brute force does; Batch answers as TopK; QuantTopK with a re-rank of
// every row answers as TopK.
func TestScansAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const d = 24
	ctx := context.Background()
	for _, n := range []int{1, 300, 3 * MinRowsPerWorker} {
		rows, meta := rowsOf(r, n, d)
		match, _, err := filter.Compile(map[string]any{"even": true})
		if err != nil {
			t.Fatal(err)
		}
		sels := map[string]Selection[map[string]any]{
			"all":        {Meta: meta, All: true},
			"filtered":   {Meta: meta, Match: match},
			"candidates": {Meta: meta, Match: match, Cands: slices.Compact(slices.Sorted(slices.Values([]int32{0, int32(min(2, n-1)), int32(min(3, n-1)), int32(n - 1)})))},
		}
		for name, sel := range sels {
			for _, k := range []int{1, 10, n + 5} {
				q := make([]float32, d)
				for j := range q {
					q[j] = float32(r.NormFloat64())
				}
				got, err := TopK(ctx, rows, sel, q, k)
				if err != nil {
					t.Fatal(err)
				}
				if rank := sameScores(got, bruteTopK(rows, sel, q, k)); rank >= 0 {
					t.Fatalf("n %d %s k %d: TopK differs from the brute force at rank %d", n, name, k, rank)
				}
				codes := quantize(rows, n, nil)
				quant, err := QuantTopK(ctx, rows, sel, q, k, n, codes)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(quant, got) {
					t.Fatalf("n %d %s k %d: QuantTopK re-ranking every row differs from TopK at rank %d", n, name, k, firstDiff(slotsOf(quant), slotsOf(got)))
				}
				if name == "all" {
					batch, err := Batch(ctx, rows, n, [][]float32{q, q}, []int{k, 1})
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(batch[0], got) || !slices.Equal(batch[1], got[:1]) {
						t.Fatalf("n %d k %d: Batch differs from TopK at rank %d", n, k, firstDiff(slotsOf(batch[0]), slotsOf(got)))
					}
				}
			}
		}
	}
}

// Rows that all score alike rank in storage order, whichever worker took
// which chunk of them: the exact, batched, shared and int8 scans alike.
func TestTiesRankInStorageOrderAcrossWorkers(t *testing.T) {
	const n, d, k = 5 * MinRowsPerWorker, 8, 40
	rows := &Rows{Dim: d, Arena: make([]float32, n*d), Scale: make([]float64, n)}
	meta := make([]map[string]any, n)
	for i := range n {
		copy(rows.Arena[i*d:], []float32{1, 2, 3, 4, 5, 6, 7, 8})
		rows.Scale[i] = vecmath.FastScale(rows.Vector(i))
		meta[i] = map[string]any{}
	}
	q := []float32{8, 7, 6, 5, 4, 3, 2, 1}
	want := make([]int32, k)
	for i := range want {
		want[i] = int32(i)
	}
	ctx := context.Background()
	for range 20 { // chunks go to workers differently each time
		exact, err := TopK(ctx, rows, Selection[map[string]any]{Meta: meta, All: true}, q, k)
		if err != nil {
			t.Fatal(err)
		}
		batch, err := Batch(ctx, rows, n, [][]float32{q, q, q, q, q}, []int{k, k, k, k, k})
		if err != nil {
			t.Fatal(err)
		}
		var shared Shared
		alone, err := shared.TopK(ctx, rows, n, q, k)
		if err != nil {
			t.Fatal(err)
		}
		quant, err := QuantTopK(ctx, rows, Selection[map[string]any]{Meta: meta, All: true}, q, k, 2, quantize(rows, n, nil))
		if err != nil {
			t.Fatal(err)
		}
		for name, got := range map[string][]topk.Scored{"TopK": exact, "Batch": batch[4], "Shared": alone, "QuantTopK": quant} {
			if !slices.Equal(slotsOf(got), want) {
				t.Fatalf("%s ranks tied rows %v, want %v", name, slotsOf(got), want)
			}
		}
	}
}

// A zero query ranks the first k selected rows, all undefined; a zero row
// ranks after every real score.
func TestUndirectedRows(t *testing.T) {
	rows := &Rows{Dim: 2, Arena: []float32{0, 0, 1, 0, 0, 1}, Scale: []float64{0, 1, 1}}
	meta := make([]map[string]any, 3)
	sel := Selection[map[string]any]{Meta: meta, All: true}
	got, _ := TopK(context.Background(), rows, sel, []float32{0, 0}, 2)
	if want := []topk.Scored{{Key: topk.Undefined, Slot: 0}, {Key: topk.Undefined, Slot: 1}}; !slices.Equal(got, want) {
		t.Fatalf("zero query: %v", got)
	}
	got, _ = TopK(context.Background(), rows, sel, []float32{1, 1}, 3)
	if slotsOf(got)[2] != 0 || got[2].Key != topk.Undefined || math.Abs(got[0].Key-math.Sqrt2/2) > 1e-6 {
		t.Fatalf("zero row: %v", got)
	}
}

// A cancelled context stops a scan large enough to look at it.
func TestScanHonoursItsContext(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rows, meta := rowsOf(r, 64*block*2, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := TopK(ctx, rows, Selection[map[string]any]{Meta: meta, All: true}, []float32{1, 0, 0, 0}, 3); err != context.Canceled {
		t.Fatalf("TopK with a cancelled context: %v", err)
	}
}

func firstDiff(a, b []int32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// BenchmarkExactScanAgainstReadFloor is the unfiltered exact scan of
// 100k×384 rows (TopK, top 10, on GOMAXPROCS workers) beside its floor:
// the same vectors merely read (vecmath.Sum), split over as many
// goroutines. The target is scan ≤ 1.2× read, both from one run.
func BenchmarkExactScanAgainstReadFloor(b *testing.B) {
	const n, d = 100_000, 384
	r := rand.New(rand.NewPCG(1, 2))
	rows, meta := rowsOf(r, n, d)
	q := make([]float32, d)
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	sel := Selection[map[string]any]{All: true, Meta: meta}
	workers := runtime.GOMAXPROCS(0)
	sums := make([]float32, workers)
	for range 2 { // twice, interleaved, on a noisy machine
		b.Run("read", func(b *testing.B) {
			b.SetBytes(int64(len(rows.Arena)) * 4)
			for b.Loop() {
				var wg sync.WaitGroup
				for w := range workers {
					lo, hi := w*n/workers*d, (w+1)*n/workers*d
					wg.Go(func() { sums[w] = vecmath.Sum(rows.Arena[lo:hi]) })
				}
				wg.Wait()
			}
		})
		b.Run("scan", func(b *testing.B) {
			b.SetBytes(int64(len(rows.Arena)) * 4)
			for b.Loop() {
				if _, err := TopK(context.Background(), rows, sel, q, 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// split covers [lo, hi) once, in chunks each worker takes in ascending
// order, and stops taking chunks when its context ends.
func TestSplit(t *testing.T) {
	for _, c := range []struct{ lo, hi, workers int }{{0, 10, 1}, {0, 10, 3}, {5, 8, 3}, {100, 20_100, 7}, {0, 100_000, 2}} {
		seen := make([]atomic.Int32, c.hi)
		last := make([]int, c.workers) // the end of each worker's last chunk
		var chunks atomic.Int32
		err := split(context.Background(), c.lo, c.hi, c.workers, func(w, lo, hi int) {
			if lo < last[w] || lo >= hi {
				t.Errorf("%+v: worker %d took %d..%d after a chunk ending at %d", c, w, lo, hi, last[w])
			}
			last[w] = hi
			chunks.Add(1)
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range seen {
			want := int32(0)
			if i >= c.lo {
				want = 1
			}
			if got := seen[i].Load(); got != want {
				t.Fatalf("%+v: row %d covered %d times", c, i, got)
			}
		}
		if n := c.hi - c.lo; n >= 2*block*c.workers*chunksPerWorker && int(chunks.Load()) < c.workers*chunksPerWorker {
			t.Errorf("%+v: %d chunks, want at least %d", c, chunks.Load(), c.workers*chunksPerWorker)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	err := split(ctx, 0, 100_000, 2, func(w, lo, hi int) {
		if calls.Add(1) == 1 {
			cancel()
		}
	})
	if err != context.Canceled || calls.Load() > 2 {
		t.Fatalf("split after cancel: %v, %d chunks taken", err, calls.Load())
	}
}

// quantize is Quantize of rows in memory, which cannot fail.
func quantize(rows *Rows, n int, base *Codes) *Codes {
	c, err := Quantize(context.Background(), rows, n, base)
	if err != nil {
		panic(err)
	}
	return c
}

// quantizeNibbles is QuantizeNibbles of rows in memory, which cannot fail.
func quantizeNibbles(rows *Rows, n int, base *Nibbles) *Nibbles {
	c, err := QuantizeNibbles(context.Background(), rows, n, base)
	if err != nil {
		panic(err)
	}
	return c
}
