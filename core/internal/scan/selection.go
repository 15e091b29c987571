package scan

import (
	"slices"

	"github.com/foliovec/folio/core/internal/filter"
)

// Selection is the set of rows a filter selects, narrowed by posting
// lists when the filter allows: the predicate then runs on the candidates
// alone. Meta holds every row's inline metadata (one per row: its length
// is the number of rows).
type Selection[M ~map[string]any] struct {
	Meta  []M
	All   bool             // no filter: every row
	None  bool             // nothing can match
	Cands []int32          // ascending candidate rows; nil: every row is a candidate
	Exact bool             // the candidates are exactly the matches: skip Match
	Match filter.Predicate // run on each candidate; nil when All
}

// Each calls fn with every selected row in ascending order.
func (sel Selection[M]) Each(fn func(slot int32)) {
	switch {
	case sel.None:
	case sel.All:
		for i := range sel.Meta {
			fn(int32(i))
		}
	case sel.Cands != nil:
		for _, slot := range sel.Cands {
			if sel.Exact || sel.Match(map[string]any(sel.Meta[slot])) {
				fn(slot)
			}
		}
	default:
		for i, m := range sel.Meta {
			if sel.Match(map[string]any(m)) {
				fn(int32(i))
			}
		}
	}
}

// Matches reports whether row slot is selected.
func (sel Selection[M]) Matches(slot int32) bool {
	switch {
	case sel.None:
		return false
	case sel.All:
		return true
	}
	return sel.Match(map[string]any(sel.Meta[slot]))
}

// candidates is the number of positions a scan walks: every row, or the
// candidates.
func (sel Selection[M]) candidates() int {
	if sel.Cands != nil {
		return len(sel.Cands)
	}
	return len(sel.Meta)
}

// gather writes into idx the selected rows among positions start..end-1
// (rows, or indexes into the candidates) and returns how many: a block at
// a time, so that exact candidates are copied and the predicate is called
// without a call per position.
func (sel Selection[M]) gather(start, end int, idx []int32) int {
	if sel.Cands != nil && (sel.Exact || sel.All) {
		return copy(idx, sel.Cands[start:end])
	}
	m := 0
	for p := start; p < end; p++ {
		slot := int32(p)
		if sel.Cands != nil {
			slot = sel.Cands[p]
		}
		if sel.All || sel.Exact || sel.Match(map[string]any(sel.Meta[slot])) {
			idx[m] = slot
			m++
		}
	}
	return m
}

// selects reports whether row slot is selected, as Each would call it
// with slot.
func (sel Selection[M]) selects(slot int32) bool {
	switch {
	case sel.None || slot < 0 || int(slot) >= len(sel.Meta):
		return false
	case sel.Cands != nil:
		if _, found := slices.BinarySearch(sel.Cands, slot); !found {
			return false
		}
		return sel.Exact || sel.All || sel.Match(map[string]any(sel.Meta[slot]))
	case sel.All:
		return true
	}
	return sel.Match(map[string]any(sel.Meta[slot]))
}
