// Package topk keeps the best candidates of a scan: a bounded min-heap per
// worker, merged into one ranking. Equal scores rank by slot, so a scan
// offering slots in ascending order ranks ties in storage order.
package topk

import (
	"math"
	"slices"
)

// Scored is one candidate of a query: its slot and its rank key. The key is
// the cosine score, or Undefined for an item or query with no
// direction, which ranks after every real score.
type Scored struct {
	Key  float64
	Slot int32
}

// Undefined is the rank key of a zero-norm (or non-finite) item or
// query: below every cosine score. It reports as score 0.
const Undefined = -math.MaxFloat64

// better reports whether a ranks before b: higher key first, and on equal
// keys the lower slot (earlier insertion) first.
func (a Scored) Better(b Scored) bool {
	if a.Key != b.Key {
		return a.Key > b.Key
	}
	return a.Slot < b.Slot
}

// Heap keeps the k best candidates seen, as a min-heap whose root is the
// worst kept. Candidates offered in ascending slot order tie-break in
// insertion order because an equal key never displaces the root.
type Heap struct {
	k    int
	heap []Scored
}

func New(k int) *Heap { return &Heap{k: k, heap: make([]Scored, 0, k)} }

// Full reports whether k candidates are kept.
func (t *Heap) Full() bool { return len(t.heap) == t.k }

// Floor is the key a candidate must beat when the heap is full.
func (t *Heap) Floor() float64 { return t.heap[0].Key }

// Offer considers c.
func (t *Heap) Offer(c Scored) {
	if len(t.heap) < t.k {
		t.heap = append(t.heap, c)
		t.up(len(t.heap) - 1)
		return
	}
	if t.k == 0 || !c.Better(t.heap[0]) {
		return
	}
	t.heap[0] = c
	t.down(0)
}

func (t *Heap) up(i int) {
	h := t.heap
	for i > 0 {
		p := (i - 1) / 2
		if !h[p].Better(h[i]) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (t *Heap) down(i int) {
	h := t.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		worst := l
		if r := l + 1; r < n && h[l].Better(h[r]) {
			worst = r
		}
		if !h[i].Better(h[worst]) {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

// Merge merges heaps into the k best, best first.
func Merge(k int, heaps ...*Heap) []Scored {
	parts := make([][]Scored, len(heaps))
	for i, h := range heaps {
		parts[i] = h.heap
	}
	return Best(k, parts...)
}

// Best returns the k best of the candidates in parts, best first: when
// each part holds the k best of its own rows, the k best of all the rows.
func Best(k int, parts ...[]Scored) []Scored {
	var all []Scored
	for _, p := range parts {
		all = append(all, p...)
	}
	slices.SortFunc(all, func(a, b Scored) int {
		switch {
		case a.Better(b):
			return -1
		case b.Better(a):
			return 1
		}
		return 0
	})
	if len(all) > k {
		all = all[:k]
	}
	return all
}

// Items returns the kept candidates, in heap order.
func (t *Heap) Items() []Scored { return t.heap }
