package topk

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTopK(t *testing.T) {
	t.Run("keeps the k best, best first, ties in slot order", func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for trial := range 200 {
			n, k := r.IntN(300), 1+r.IntN(20)
			all := make([]Scored, n)
			for i := range all {
				all[i] = Scored{Key: float64(r.IntN(10)) / 10, Slot: int32(i)}
				if r.IntN(10) == 0 {
					all[i].Key = Undefined
				}
			}
			// Split across "workers" as the scan does.
			parts := 1 + r.IntN(4)
			var heaps []*Heap
			for p := range parts {
				h := New(k)
				for _, c := range all[p*n/parts : (p+1)*n/parts] {
					h.Offer(c)
				}
				heaps = append(heaps, h)
			}
			got := Merge(k, heaps...)
			want := slices.Clone(all)
			slices.SortStableFunc(want, func(a, b Scored) int {
				switch {
				case a.Key > b.Key:
					return -1
				case a.Key < b.Key:
					return 1
				}
				return 0
			})
			want = want[:min(k, n)]
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d: got %v want %v", trial, got, want)
			}
		}
	})
}
