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

func TestSlotMap(t *testing.T) {
	t.Run("layers resolve every id and flatten once deep", func(t *testing.T) {
		m := (&slotMap{}).with(map[string]int32{"a": 0})
		want := map[string]int32{"a": 0}
		for i := 1; i < 40; i++ {
			id := string(rune('a' + i))
			m = m.with(map[string]int32{id: int32(i)})
			want[id] = int32(i)
			if m.depth >= maxSlotMapDepth {
				t.Fatalf("depth %d", m.depth)
			}
		}
		if m.size() != len(want) {
			t.Fatalf("size %d", m.size())
		}
		for id, s := range want {
			if got, ok := m.lookup(id); !ok || got != s {
				t.Fatalf("lookup(%q) = %d, %v", id, got, ok)
			}
		}
		if _, ok := m.lookup("zz"); ok {
			t.Fatal("found a missing id")
		}
	})
}
