package scan

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// byRemainder splits rows 0..n-1 into parts partitions by their
// remainder: every partition's rows spread over every run.
func byRemainder(n, parts int) [][]int32 {
	lists := make([][]int32, parts)
	for i := range n {
		lists[i%parts] = append(lists[i%parts], int32(i))
	}
	return lists
}

// NibbleProbe over every partition answers as NibbleTopK over every row:
// the grouped copy scores each row as the codes in place do, whether the
// rows lie in one run or two, all grouped or some in the tail.
func TestNibbleProbeOfEveryPartitionAgreesWithNibbleTopK(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const d = 40
	ctx := context.Background()
	n := 3*MinRowsPerWorker + 17
	rows, meta := rowsOf(r, n, d)
	whole := quantizeNibbles(rows, n, nil)
	sealed := NewNibbles(d, []NibbleRun{{Grid: whole.runs[0].Grid, Codes: whole.runs[0].Codes[:n/2*whole.stride], Inv: whole.runs[0].Inv[:n/2], Sealed: true}})
	twoRuns := quantizeNibbles(rows, n, sealed)
	all := Selection[map[string]any]{Meta: meta, All: true}
	for name, codes := range map[string]*Nibbles{"one run": whole, "two runs": twoRuns} {
		for _, grouped := range []int{n, n * 2 / 3} {
			lists := byRemainder(grouped, 7)
			g := GroupNibbles(codes, lists)
			if g.Rows() != grouped {
				t.Fatalf("%s: grouped %d rows, want %d", name, g.Rows(), grouped)
			}
			parts := []int32{6, 0, 1, 2, 3, 4, 5}
			for _, k := range []int{1, 10} {
				q := make([]float32, d)
				for j := range q {
					q[j] = float32(r.NormFloat64())
				}
				want, err := NibbleTopK(ctx, rows, all, q, k, 4, codes, nil)
				if err != nil {
					t.Fatal(err)
				}
				got, err := NibbleProbe(ctx, rows, meta, q, k, 4, codes, g, parts, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s, %d grouped, k %d: NibbleProbe %v, NibbleTopK %v", name, grouped, k, got, want)
				}
			}
		}
	}
}

// NibbleProbe of some partitions returns only their rows and the tail's,
// each with its exact score (up to the float32 rounding of its dot
// product).
func TestNibbleProbeReadsOnlyTheProbedPartitionsAndTheTail(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	const d = 24
	ctx := context.Background()
	n := 2000
	rows, meta := rowsOf(r, n, d)
	codes := quantizeNibbles(rows, n, nil)
	grouped := 1500
	g := GroupNibbles(codes, byRemainder(grouped, 10))
	q := make([]float32, d)
	for j := range q {
		q[j] = float32(r.NormFloat64())
	}
	got, err := NibbleProbe(ctx, rows, meta, q, 50, 4, codes, g, []int32{3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 50 {
		t.Fatalf("%d results, want 50", len(got))
	}
	exact := Selection[map[string]any]{Meta: meta, All: true}
	for _, h := range got {
		if int(h.Slot) < grouped && h.Slot%10 != 3 {
			t.Fatalf("row %d is in neither partition 3 nor the tail", h.Slot)
		}
		if want := Key(rows, q, h.Slot); math.Abs(h.Key-want) > 1e-6 {
			t.Fatalf("row %d scored %v, exactly %v", h.Slot, h.Key, want)
		}
	}
	// A query of length 0 ranks every row alike: the first rows, as
	// NibbleTopK ranks them.
	zero := make([]float32, d)
	got, err = NibbleProbe(ctx, rows, meta, zero, 5, 4, codes, g, []int32{3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := NibbleTopK(ctx, rows, exact, zero, 5, 4, codes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("zero query: %v, want %v", got, want)
	}
}
