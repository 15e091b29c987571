package core

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
			all := make([]scored, n)
			for i := range all {
				all[i] = scored{key: float64(r.IntN(10)) / 10, slot: int32(i)}
				if r.IntN(10) == 0 {
					all[i].key = undefinedScore
				}
			}
			// Split across "workers" as the scan does.
			parts := 1 + r.IntN(4)
			var heaps []*topK
			for p := range parts {
				h := newTopK(k)
				for _, c := range all[p*n/parts : (p+1)*n/parts] {
					h.offer(c)
				}
				heaps = append(heaps, h)
			}
			got := mergeTopK(k, heaps...)
			want := slices.Clone(all)
			slices.SortStableFunc(want, func(a, b scored) int {
				switch {
				case a.key > b.key:
					return -1
				case a.key < b.key:
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
