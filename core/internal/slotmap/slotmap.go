// Package slotmap maps item ids to slots in layers, so that a commit that
// adds a few ids shares its parent snapshot's map instead of copying it.
package slotmap

// Map maps item ids to slots. It is immutable once published; an
// append-only commit layers a small map of the new ids over its parent
// instead of copying every entry, and flattens the chain once it grows deep
// or the new layer is large, so lookups stay O(depth) with depth ≤
// maxSlotMapDepth and the copying stays amortised O(1) per item.
type Map struct {
	own    map[string]int32
	parent *Map
	depth  int
}

const maxSlotMapDepth = 8

// New returns a map of one layer holding own (which it keeps).
func New(own map[string]int32) *Map { return &Map{own: own} }

// Lookup returns the slot of id.
func (m *Map) Lookup(id string) (int32, bool) {
	for l := m; l != nil; l = l.parent {
		if s, ok := l.own[id]; ok {
			return s, true
		}
	}
	return 0, false
}

// Size is the number of entries over every layer.
func (m *Map) Size() int {
	n := 0
	for l := m; l != nil; l = l.parent {
		n += len(l.own)
	}
	return n
}

// With returns a map holding m's entries and adds, where adds holds ids
// absent from m. m is not modified.
func (m *Map) With(adds map[string]int32) *Map {
	if m == nil || m.Size() == 0 {
		return &Map{own: adds}
	}
	if m.depth+1 >= maxSlotMapDepth || 4*len(adds) >= m.Size() {
		flat := make(map[string]int32, m.Size()+len(adds))
		m.copyInto(flat)
		for id, s := range adds {
			flat[id] = s
		}
		return &Map{own: flat}
	}
	return &Map{own: adds, parent: m, depth: m.depth + 1}
}

// copyInto copies every entry into dst, upper layers winning.
func (m *Map) copyInto(dst map[string]int32) {
	if m == nil {
		return
	}
	m.parent.copyInto(dst)
	for id, s := range m.own {
		dst[id] = s
	}
}
