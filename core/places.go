package core

import (
	"slices"

	"github.com/foliovec/folio/core/internal/scan"
	"github.com/foliovec/folio/core/internal/topk"
)

// Vectra's file layout keeps a replaced item in its place in the file. In
// memory a replacement is a delete and an insert (the old slot marked dead,
// the new content appended), so that a commit copies no column; the
// snapshot remembers where the moved item is stored: moved maps the place
// (a dead slot) to the slot now holding the content, placeOf the other
// way. Storage order (the file, ListItems) is slot order with each moved
// item at its place. Both maps are nil when no item has moved since the
// columns were last rebuilt, and are never modified once published.

// placed is one item in storage order: stored at place, its content at
// slot (the same, but for a moved item).
type placed struct{ place, slot int32 }

// storageOrder returns s's live slots in storage order.
func (s *snapshot) storageOrder() []int32 {
	if len(s.moved) == 0 {
		return s.liveSlots(0, s.len())
	}
	out := make([]int32, 0, s.count())
	for i := range int32(s.len()) {
		if q, ok := s.moved[i]; ok && s.isDead(int(i)) {
			if !s.isDead(int(q)) {
				out = append(out, q)
			}
			continue
		}
		if p, ok := s.placeOf[i]; (ok && s.isDead(int(p))) || s.isDead(int(i)) {
			continue // stored at its place, p
		}
		out = append(out, i)
	}
	return out
}

// inStorageOrder sorts slots, live ones of s, by their place in storage
// order.
func (s *snapshot) inStorageOrder(slots []int32) []int32 {
	if len(s.moved) == 0 {
		return slots
	}
	slices.SortFunc(slots, func(a, b int32) int { return int(s.rank(a) - s.rank(b)) })
	return slots
}

// resolvedMoves are the batch's moves composed with its base's, over the
// batch's positions: place → the position holding its content, and back.
func (b *batch) resolvedMoves() (moved, placeOf map[int32]int32) {
	if len(b.moves) == 0 && len(b.base.moved) == 0 {
		return nil, nil
	}
	moved = make(map[int32]int32, len(b.base.moved)+len(b.moves))
	placeOf = make(map[int32]int32, len(moved))
	for p, q := range b.base.moved {
		moved[p], placeOf[q] = q, p
	}
	for q, r := range b.moves {
		p, ok := placeOf[q] // q was itself the content of an earlier move
		if ok {
			delete(placeOf, q)
		} else {
			p = q
		}
		moved[p], placeOf[r] = r, p
	}
	return moved, placeOf
}

// storageOrder returns the batch's live positions in storage order, each
// with its place.
func (b *batch) storageOrder() []placed {
	n := int32(b.base.len())
	total := n + int32(len(b.added))
	moved, placeOf := b.resolvedMoves()
	out := make([]placed, 0, b.live)
	for p := range total {
		if q, ok := moved[p]; ok && b.gone(p) {
			if !b.gone(q) {
				out = append(out, placed{place: p, slot: q})
			}
			continue
		}
		if o, ok := placeOf[p]; ok && b.gone(o) {
			continue // stored at its place, o
		}
		if !b.gone(p) {
			out = append(out, placed{place: p, slot: p})
		}
	}
	return out
}

// keptMoves are the moves of a snapshot that keeps the base's rows, its
// added positions renumbered to their slots (slot[j] for added item j, -1
// when deleted): the moves whose content is still live.
func (b *batch) keptMoves(slot []int32) (moved, placeOf map[int32]int32) {
	all, _ := b.resolvedMoves()
	if len(all) == 0 {
		return nil, nil
	}
	n := int32(b.base.len())
	moved = make(map[int32]int32, len(all))
	placeOf = make(map[int32]int32, len(all))
	for p, q := range all {
		if b.gone(q) || !b.gone(p) {
			continue
		}
		if q >= n {
			q = slot[q-n]
		}
		moved[p], placeOf[q] = q, p
	}
	if len(moved) == 0 {
		return nil, nil
	}
	return moved, placeOf
}

// rank is slot's position in storage order, for ties: its place when the
// item has moved, else the slot itself.
func (s *snapshot) rank(slot int32) int32 {
	if p, ok := s.placeOf[slot]; ok && s.isDead(int(p)) {
		return p
	}
	return slot
}

// compare orders hits best first: higher key, then earlier in storage
// order.
func (s *snapshot) compare(a, b topk.Scored) int {
	switch {
	case a.Key > b.Key:
		return -1
	case a.Key < b.Key:
		return 1
	}
	return int(s.rank(a.Slot) - s.rank(b.Slot))
}

// finish turns a scan's hits for vector over sel (asked for ndead more
// than k) into the query's k best: hits on dead slots dropped and, where
// items have moved, ties in storage order. The scans break ties by slot,
// so a moved item, at a later slot than its place, may have lost a tie it
// wins in storage order: every moved item sel selects is scored and
// ranked with the hits. (Any other row a scan left out ranks after k of
// its live hits either way.)
func (s *snapshot) finish(hits []topk.Scored, sel selection, vector []float32, k int) []topk.Scored {
	if len(s.moved) == 0 {
		return s.dropDead(hits, k)
	}
	hits = s.dropDead(hits, len(hits))
	in := make(map[int32]bool, len(hits))
	for _, h := range hits {
		in[h.Slot] = true
	}
	for q := range s.placeOf {
		if s.rank(q) != q && !s.isDead(int(q)) && !in[q] && sel.Matches(q) {
			hits = append(hits, topk.Scored{Key: scan.Key(&s.Rows, vector, q), Slot: q})
		}
	}
	slices.SortFunc(hits, s.compare)
	return hits[:min(len(hits), k)]
}

// rebuilt is s with its columns rebuilt in storage order, each moved item
// in its place with its place's serial (what a commit rebuilding the
// columns makes).
func (s *snapshot) rebuilt() *snapshot {
	b := newBatch(s)
	b.keepPlace = true
	return b.applyRebuild()
}
