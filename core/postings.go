package core

import (
	"slices"
	"strings"
)

// postings holds, for each indexed metadata field (MetadataConfig.Indexed),
// the slots of the items holding each value, in ascending slot order.
// Values are keyed as metadataKey normalises them (string, float64 by
// value, or bool), the normalisation the filter plan uses, so a query
// narrows its candidates to the union of a few lists and runs the full
// filter on those alone. An index with no indexed fields keeps no
// postings; its filtered queries test every item.
//
// postings are immutable once published. An append-only commit shares the
// lists of its parent and appends into their spare capacity, which no
// reader of the parent looks at.
type postings struct {
	fields map[string]*fieldPostings
}

// fieldPostings are one field's lists, by value kind (typed maps keep
// values unboxed and hash them fast).
type fieldPostings struct {
	str   map[string][]int32
	num   map[float64][]int32
	bools [2][]int32 // false, true
}

// list returns the slots holding key (a metadataKey value).
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
	if key, ok := metadataKey(v); ok {
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

// buildPostings indexes every slot of s.
func buildPostings(s *snapshot) *postings {
	p := &postings{fields: make(map[string]*fieldPostings, len(s.config.Indexed))}
	for _, f := range s.config.Indexed {
		p.fields[f] = &fieldPostings{str: map[string][]int32{}, num: map[float64][]int32{}}
	}
	p.add(s.meta, 0)
	return p
}

// withAppended returns postings that also index meta[from:], which are the
// slots from..len(meta)-1. p is not modified.
func (p *postings) withAppended(meta []Metadata, from int) *postings {
	if len(p.fields) == 0 || from == len(meta) {
		return p
	}
	q := &postings{fields: make(map[string]*fieldPostings, len(p.fields))}
	for f, fp := range p.fields {
		q.fields[f] = fp.clone()
	}
	q.add(meta[from:], from)
	return q
}

// add indexes meta, whose first element is slot base.
func (p *postings) add(meta []Metadata, base int) {
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

// candidates narrows a filter to ascending slots with its plan's equality
// terms and its range conditions on indexed fields. ok is false when none
// is on an indexed field, so the caller must test every item. The result
// may alias a posting list: treat it as read-only.
func (p *postings) candidates(plan filterPlan, ranges []rangeTerm) (slots []int32, ok bool) {
	var lists [][]int32
	for _, t := range plan.terms {
		fp, indexed := p.fields[t.field]
		if !indexed {
			continue
		}
		lists = append(lists, unionPostings(fp, t.values))
	}
	for _, r := range ranges {
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

// rangeTerm is a necessary condition of a filter: the item's value of
// field is a number satisfying every op.
type rangeTerm struct {
	field string
	ops   []rangeOp
}

type rangeOp struct {
	op string // $gt, $gte, $lt or $lte
	n  float64
}

func (r rangeOp) holds(v float64) bool {
	switch r.op {
	case "$gt":
		return v > r.n
	case "$gte":
		return v >= r.n
	case "$lt":
		return v < r.n
	}
	return v <= r.n
}

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

// rangeTerms collects the range operators ($gt, $gte, $lt, $lte) on fields
// at the top level of a valid filter and inside its top-level $and: each is
// a necessary condition for a match (only numbers pass them), with its
// operand converted as the filter converts it (rangeOperand), objects and
// lists read as the filter reads them (asObject, asArray). Anything else
// adds no term.
func rangeTerms(f map[string]any) []rangeTerm {
	var out []rangeTerm
	for key, v := range f {
		if key == "$and" {
			subs, _ := asArray(v)
			for _, sub := range subs {
				if m, ok := asObject(sub); ok {
					out = append(out, rangeTerms(m)...)
				}
			}
			continue
		}
		if strings.HasPrefix(key, "$") {
			continue
		}
		ops, ok := asObject(v)
		if !ok {
			continue
		}
		t := rangeTerm{field: key}
		for op, x := range ops {
			switch op {
			case "$gt", "$gte", "$lt", "$lte":
				if n, err := rangeOperand(key, op, x); err == nil {
					t.ops = append(t.ops, rangeOp{op: op, n: n})
				}
			}
		}
		if len(t.ops) > 0 {
			out = append(out, t)
		}
	}
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

// exactOnPostings reports whether f is one equality or membership test on
// one field — {"f": v}, {"f": {"$eq": v}} or {"f": {"$in": [v, …]}} with
// scalar operands — so that, when f is an indexed field, the items matching
// f are exactly those in the posting lists of its plan: both compare values
// through toScalar (strings with strings, numbers by float64 value,
// booleans with booleans). The predicate can then be skipped.
func exactOnPostings(f Filter) bool {
	if len(f) != 1 {
		return false
	}
	for field, v := range f {
		if len(field) > 0 && field[0] == '$' {
			return false
		}
		if isPlanScalar(v) {
			return true
		}
		var ops map[string]any
		switch x := v.(type) {
		case Filter:
			ops = x
		case map[string]any:
			ops = x
		default:
			return false
		}
		if len(ops) != 1 {
			return false
		}
		if operand, ok := ops["$eq"]; ok {
			return isPlanScalar(operand)
		}
		list, ok := ops["$in"].([]any)
		if !ok {
			return false
		}
		for _, e := range list {
			if !isPlanScalar(e) {
				return false
			}
		}
		return true
	}
	return false
}

// isPlanScalar reports whether v is a string, number or boolean operand.
func isPlanScalar(v any) bool {
	switch toScalar(v).kind {
	case kindString, kindNumber, kindBool:
		return true
	}
	return false
}
