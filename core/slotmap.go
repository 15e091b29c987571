package core

// slotMap maps item ids to slots. It is immutable once published; an
// append-only commit layers a small map of the new ids over its parent
// instead of copying every entry, and flattens the chain once it grows deep
// or the new layer is large, so lookups stay O(depth) with depth ≤
// maxSlotMapDepth and the copying stays amortised O(1) per item.
type slotMap struct {
	own    map[string]int32
	parent *slotMap
	depth  int
}

const maxSlotMapDepth = 8

// lookup returns the slot of id.
func (m *slotMap) lookup(id string) (int32, bool) {
	for l := m; l != nil; l = l.parent {
		if s, ok := l.own[id]; ok {
			return s, true
		}
	}
	return 0, false
}

// size is the number of entries over every layer.
func (m *slotMap) size() int {
	n := 0
	for l := m; l != nil; l = l.parent {
		n += len(l.own)
	}
	return n
}

// with returns a map holding m's entries and adds, where adds holds ids
// absent from m. m is not modified.
func (m *slotMap) with(adds map[string]int32) *slotMap {
	if m == nil || m.size() == 0 {
		return &slotMap{own: adds}
	}
	if m.depth+1 >= maxSlotMapDepth || 4*len(adds) >= m.size() {
		flat := make(map[string]int32, m.size()+len(adds))
		m.copyInto(flat)
		for id, s := range adds {
			flat[id] = s
		}
		return &slotMap{own: flat}
	}
	return &slotMap{own: adds, parent: m, depth: m.depth + 1}
}

// copyInto copies every entry into dst, upper layers winning.
func (m *slotMap) copyInto(dst map[string]int32) {
	if m == nil {
		return
	}
	m.parent.copyInto(dst)
	for id, s := range m.own {
		dst[id] = s
	}
}
