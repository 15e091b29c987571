// Package slotmap maps item ids to slots in layers, so that a commit that
// changes a few ids shares its parent snapshot's map instead of copying it.
package slotmap

// Map maps item ids to slots. It is immutable once published. A commit
// layers a small map of the ids it changed over its parent's; layers are
// merged as a binary counter carries — a layer is merged into the one below
// while it holds at least half as many entries — so each layer holds less
// than half of the one below: lookups visit O(log n) layers, and each entry
// is copied O(log n) times over its life, never the whole map per commit.
//
// A negative slot marks an id deleted in that layer: lookups stop there and
// find nothing, and merging into the bottom layer drops the mark.
type Map struct {
	own    map[string]int32
	parent *Map
	depth  int
}

// New returns a map of one layer holding own (which it keeps).
func New(own map[string]int32) *Map { return &Map{own: own} }

// Lookup returns the slot of id. An id deleted in a layer (a negative slot)
// is not found.
func (m *Map) Lookup(id string) (int32, bool) {
	for l := m; l != nil; l = l.parent {
		if s, ok := l.own[id]; ok {
			return s, s >= 0
		}
	}
	return 0, false
}

// Size is the number of entries over every layer (an id in several layers
// counts in each).
func (m *Map) Size() int {
	n := 0
	for l := m; l != nil; l = l.parent {
		n += len(l.own)
	}
	return n
}

// With returns a map holding m's entries overridden by changes (m is not
// modified; changes is kept).
func (m *Map) With(changes map[string]int32) *Map {
	if m == nil || m.Size() == 0 {
		return &Map{own: dropDeleted(changes)}
	}
	top := &Map{own: changes, parent: m, depth: m.depth + 1}
	for top.parent != nil && 2*len(top.own) >= len(top.parent.own) {
		below := top.parent
		merged := make(map[string]int32, len(below.own)+len(top.own))
		for id, s := range below.own {
			merged[id] = s
		}
		for id, s := range top.own {
			merged[id] = s
		}
		top = &Map{own: merged, parent: below.parent, depth: below.depth}
		if top.parent == nil {
			top.own = dropDeleted(top.own)
		}
	}
	return top
}

// dropDeleted removes the deletion marks of a bottom layer, in place.
func dropDeleted(own map[string]int32) map[string]int32 {
	for id, s := range own {
		if s < 0 {
			delete(own, id)
		}
	}
	return own
}
