package filter

import "slices"

// Postings holds, for each indexed metadata field (MetadataConfig.Indexed),
// the slots of the items holding each value, in ascending slot order.
// Values are keyed as MetadataKey normalises them (string, float64 by
// value, or bool), the normalisation the filter plan uses, so a query
// narrows its candidates to the union of a few lists and runs the full
// filter on those alone. An index with no indexed fields keeps no
// Postings; its filtered queries test every item.
//
// Postings are immutable once published. An append-only commit shares the
// lists of its parent and appends into their spare capacity, which no
// reader of the parent looks at.
type Postings struct {
	fields map[string]*fieldPostings
}

// fieldPostings are one field's lists, by value kind (typed maps keep
// values unboxed and hash them fast).
type fieldPostings struct {
	str   map[string][]int32
	num   map[float64][]int32
	bools [2][]int32 // false, true
}

// list returns the slots holding key (a MetadataKey value).
func (fp *fieldPostings) list(key any) []int32 {
	switch k := key.(type) {
	case string:
		return fp.str[k]
	case float64:
		return fp.num[k]
	case bool:
		return fp.bools[b2i(k)]
	}
	return nil
}

// add records that slot holds v.
func (fp *fieldPostings) add(v any, slot int32) {
	switch k := v.(type) {
	case string:
		fp.str[k] = append(fp.str[k], slot)
		return
	case float64:
		if k == k { // NaN matches nothing
			fp.num[k] = append(fp.num[k], slot)
		}
		return
	case bool:
		fp.bools[b2i(k)] = append(fp.bools[b2i(k)], slot)
		return
	}
	if key, ok := MetadataKey(v); ok {
		fp.add(key, slot)
	}
}

func (fp *fieldPostings) clone() *fieldPostings {
	c := &fieldPostings{str: make(map[string][]int32, len(fp.str)), num: make(map[float64][]int32, len(fp.num)), bools: fp.bools}
	for k, v := range fp.str {
		c.str[k] = v
	}
	for k, v := range fp.num {
		c.num[k] = v
	}
	return c
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BuildPostings indexes meta (slot i is meta[i]) on the given fields.
func BuildPostings[M ~map[string]any](fields []string, meta []M) *Postings {
	p := &Postings{fields: make(map[string]*fieldPostings, len(fields))}
	for _, f := range fields {
		p.fields[f] = &fieldPostings{str: map[string][]int32{}, num: map[float64][]int32{}}
	}
	add(p, meta, 0)
	return p
}

// WithAppended returns postings that also index meta[from:], which are the
// slots from..len(meta)-1. p is not modified.
func WithAppended[M ~map[string]any](p *Postings, meta []M, from int) *Postings {
	if len(p.fields) == 0 || from == len(meta) {
		return p
	}
	q := &Postings{fields: make(map[string]*fieldPostings, len(p.fields))}
	for f, fp := range p.fields {
		q.fields[f] = fp.clone()
	}
	add(q, meta[from:], from)
	return q
}

// add indexes meta, whose first element is slot base.
func add[M ~map[string]any](p *Postings, meta []M, base int) {
	if len(p.fields) == 0 {
		return
	}
	type field struct {
		name string
		fp   *fieldPostings
	}
	fields := make([]field, 0, len(p.fields))
	for name, fp := range p.fields {
		fields = append(fields, field{name, fp})
	}
	for i, m := range meta {
		if len(m) == 0 {
			continue
		}
		for _, f := range fields {
			if v, ok := m[f.name]; ok {
				f.fp.add(v, int32(base+i))
			}
		}
	}
}

// Candidates narrows a filter to ascending slots with its plan's equality
// terms and range terms on indexed fields. ok is false when none is on an
// indexed field, so the caller must test every item. The result may alias
// a posting list: treat it as read-only.
func (p *Postings) Candidates(plan Plan) (slots []int32, ok bool) {
	var lists [][]int32
	for _, t := range plan.terms {
		fp, indexed := p.fields[t.Field]
		if !indexed {
			continue
		}
		lists = append(lists, unionPostings(fp, t.Values))
	}
	for _, r := range plan.ranges {
		fp, indexed := p.fields[r.field]
		if !indexed || len(fp.num) > maxRangeValues {
			continue
		}
		lists = append(lists, fp.inRange(r.ops))
	}
	if len(lists) == 0 {
		return nil, false
	}
	slices.SortFunc(lists, func(a, b []int32) int { return len(a) - len(b) })
	out := lists[0]
	for _, l := range lists[1:] {
		if len(out) == 0 {
			break
		}
		out = intersectSorted(out, l)
	}
	return out, true
}

// maxRangeValues bounds the distinct numbers of a field that a range
// condition is narrowed over; past it, testing every item is as fast.
const maxRangeValues = 4096

// inRange returns, ascending, the slots whose number satisfies every op.
func (fp *fieldPostings) inRange(ops []rangeOp) []int32 {
	var out []int32
	for v, list := range fp.num {
		ok := true
		for _, r := range ops {
			ok = ok && r.holds(v)
		}
		if ok {
			out = append(out, list...)
		}
	}
	slices.Sort(out)
	return out
}

// unionPostings unites the lists of keys. The lists are disjoint (an item
// has one value per field), so the union is a concatenation, sorted.
func unionPostings(fp *fieldPostings, keys []any) []int32 {
	switch len(keys) {
	case 0:
		return nil
	case 1:
		return fp.list(keys[0])
	}
	var n int
	for _, k := range keys {
		n += len(fp.list(k))
	}
	out := make([]int32, 0, n)
	for _, k := range keys {
		out = append(out, fp.list(k)...)
	}
	slices.Sort(out)
	return out
}

// intersectSorted returns the slots in both ascending lists, in a new slice.
func intersectSorted(a, b []int32) []int32 {
	out := make([]int32, 0, min(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}
