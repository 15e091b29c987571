package core

import "slices"

// postings holds, for each indexed metadata field (MetadataConfig.Indexed),
// the slots of the items holding each value, in ascending slot order. Keys
// are normalised by metadataKey (string, float64 by value, or bool), the
// same normalisation the filter plan uses, so a query narrows its
// candidates to the union of a few lists and runs the full filter on those
// alone. An index with no indexed fields keeps no postings; its filtered
// queries test every item.
//
// postings are immutable once published. An append-only commit shares the
// lists of its parent and appends into their spare capacity, which no
// reader of the parent looks at.
type postings struct {
	fields map[string]map[any][]int32
}

// buildPostings indexes every slot of s.
func buildPostings(s *snapshot) *postings {
	p := &postings{fields: make(map[string]map[any][]int32, len(s.config.Indexed))}
	for _, f := range s.config.Indexed {
		p.fields[f] = make(map[any][]int32)
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
	q := &postings{fields: make(map[string]map[any][]int32, len(p.fields))}
	for f, values := range p.fields {
		q.fields[f] = clonePostingValues(values)
	}
	q.add(meta[from:], from)
	return q
}

func clonePostingValues(m map[any][]int32) map[any][]int32 {
	c := make(map[any][]int32, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	return c
}

// add indexes meta, whose first element is slot base.
func (p *postings) add(meta []Metadata, base int) {
	for f, values := range p.fields {
		for i, m := range meta {
			v, ok := m[f]
			if !ok {
				continue
			}
			key, ok := metadataKey(v)
			if !ok {
				continue
			}
			values[key] = append(values[key], int32(base+i))
		}
	}
}

// candidates narrows a filter plan to ascending slots. ok is false when no
// term of the plan is on an indexed field, so the caller must test every
// item. The result may alias a posting list: treat it as read-only.
func (p *postings) candidates(plan filterPlan) (slots []int32, ok bool) {
	var lists [][]int32
	for _, t := range plan.terms {
		values, indexed := p.fields[t.field]
		if !indexed {
			continue
		}
		lists = append(lists, unionPostings(values, t.values))
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

// unionPostings unites the lists of keys. The lists are disjoint (an item
// has one value per field), so the union is a concatenation, sorted.
func unionPostings(values map[any][]int32, keys []any) []int32 {
	switch len(keys) {
	case 0:
		return nil
	case 1:
		return values[keys[0]]
	}
	var n int
	for _, k := range keys {
		n += len(values[k])
	}
	out := make([]int32, 0, n)
	for _, k := range keys {
		out = append(out, values[k]...)
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
