package core

import (
	"math"
	"slices"
)

// scored is one candidate of a query: its slot and its rank key. The key is
// the cosine score, or undefinedScore for an item or query with no
// direction, which ranks after every real score.
type scored struct {
	key  float64
	slot int32
}

// undefinedScore is the rank key of a zero-norm (or non-finite) item or
// query: below every cosine score. It reports as score 0.
const undefinedScore = -math.MaxFloat64

// better reports whether a ranks before b: higher key first, and on equal
// keys the lower slot (earlier insertion) first.
func (a scored) better(b scored) bool {
	if a.key != b.key {
		return a.key > b.key
	}
	return a.slot < b.slot
}

// topK keeps the k best candidates seen, as a min-heap whose root is the
// worst kept. Candidates offered in ascending slot order tie-break in
// insertion order because an equal key never displaces the root.
type topK struct {
	k    int
	heap []scored
}

func newTopK(k int) *topK { return &topK{k: k, heap: make([]scored, 0, k)} }

// full reports whether k candidates are kept.
func (t *topK) full() bool { return len(t.heap) == t.k }

// floor is the key a candidate must beat when the heap is full.
func (t *topK) floor() float64 { return t.heap[0].key }

// offer considers c.
func (t *topK) offer(c scored) {
	if len(t.heap) < t.k {
		t.heap = append(t.heap, c)
		t.up(len(t.heap) - 1)
		return
	}
	if t.k == 0 || !c.better(t.heap[0]) {
		return
	}
	t.heap[0] = c
	t.down(0)
}

func (t *topK) up(i int) {
	h := t.heap
	for i > 0 {
		p := (i - 1) / 2
		if !h[p].better(h[i]) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (t *topK) down(i int) {
	h := t.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		worst := l
		if r := l + 1; r < n && h[l].better(h[r]) {
			worst = r
		}
		if !h[i].better(h[worst]) {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

// mergeTopK merges heaps into the k best, best first.
func mergeTopK(k int, heaps ...*topK) []scored {
	var all []scored
	for _, h := range heaps {
		all = append(all, h.heap...)
	}
	slices.SortFunc(all, func(a, b scored) int {
		switch {
		case a.better(b):
			return -1
		case b.better(a):
			return 1
		}
		return 0
	})
	if len(all) > k {
		all = all[:k]
	}
	return all
}
