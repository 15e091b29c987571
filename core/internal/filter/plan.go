package filter

// Plan tells the engine which items can match a filter without running
// it, so it can narrow candidates with posting lists (metadata value → item
// slots) and run the full Predicate on the candidates only. The same walk
// of the filter that compiles its Predicate builds it (filterCompiler), so
// the two never disagree on the grammar.
//
// The plan is a conservative necessary condition, never sufficient:
//
//   - none: no item can match (e.g. {"$or": []}, {"k": null},
//     {"k": {"$in": []}}, or {"k": 1, "$and": [{"k": 2}]}); skip the scan.
//   - terms: for every term, a matching item's metadata[term.Field],
//     normalised with MetadataKey, is one of term.Values. Intersect (across
//     terms) the unions (within a term) of the posting lists, then run the
//     Predicate on each candidate; it may still reject some.
//   - ranges: for every range term, a matching item's metadata[field] is a
//     number satisfying each of its operators.
//   - exact: the filter is one equality or membership test of scalars on
//     one field ({"f": v}, {"f": {"$eq": v}}, {"f": {"$in": [v, …]}}), so
//     when that field is indexed the items in its posting lists are exactly
//     the matches: both compare values through toScalar. The Predicate can
//     then be skipped.
//   - fields: every field the filter names, anywhere in it.
//   - no terms, no ranges and not none: the plan says nothing; scan
//     everything.
//
// Terms and ranges come from the conjunctive part of the filter only:
// top-level clauses, recursively through $and, and, for equality terms,
// through $or when every (not impossible) branch constrains the same field
// (the values are then united). $ne, $nin and other $or shapes add nothing.
// Terms are sorted by field; values keep first-appearance order and are
// distinct keys of dynamic type string, float64 or bool (NaN, which matches
// nothing, is dropped).
type Plan struct {
	none   bool
	terms  []Term
	ranges []rangeTerm
	exact  bool
	fields []string
}

// Term is one equality term of a plan: a matching item's metadata[Field],
// normalised by MetadataKey, is one of Values.
type Term struct {
	Field  string
	Values []any
}

// rangeTerm: a matching item's metadata[field] is a number satisfying every
// op.
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

// MetadataKey normalises a metadata value to the key the filter plan uses:
// a string, a float64 (any Go number, by value) or a bool. ok is false for
// nil and for values no $eq or $in operand can equal (slices, maps, other
// types); such values belong in no posting list.
func MetadataKey(v any) (key any, ok bool) {
	s := toScalar(v)
	switch s.kind {
	case kindString:
		return s.s, true
	case kindNumber:
		return s.f, true
	case kindBool:
		return s.b, true
	}
	return nil, false
}

// planBuilder accumulates a Plan: field → allowed keys, range terms,
// or none.
type planBuilder struct {
	none   bool
	fields map[string][]any
	ranges []rangeTerm
	exact  bool // one scalar equality or $in test on one field
}

func impossiblePlan() planBuilder { return planBuilder{none: true} }

// restrict ANDs "field is one of values" into p.
func (p *planBuilder) restrict(field string, values []any) {
	if p.none {
		return
	}
	if old, ok := p.fields[field]; ok {
		values = intersectKeys(old, values)
	}
	if len(values) == 0 {
		*p = impossiblePlan()
		return
	}
	if p.fields == nil {
		p.fields = map[string][]any{}
	}
	p.fields[field] = values
}

// and ANDs q into p.
func (p *planBuilder) and(q planBuilder) {
	if q.none {
		*p = impossiblePlan()
		return
	}
	for _, f := range sortedKeys(q.fields) {
		p.restrict(f, q.fields[f])
	}
	if !p.none {
		p.ranges = append(p.ranges, q.ranges...)
	}
}

// orPlans ORs plans: impossible branches drop out; a field constrained in
// every remaining branch keeps the union of its values. Range terms do not
// survive an $or.
func orPlans(plans []planBuilder) planBuilder {
	var live []planBuilder
	for _, p := range plans {
		if !p.none {
			live = append(live, p)
		}
	}
	if len(live) == 0 {
		return impossiblePlan()
	}
	out := planBuilder{}
	for _, f := range sortedKeys(live[0].fields) {
		total := 0
		for _, p := range live {
			total += len(p.fields[f])
		}
		values := make([]any, 0, total)
		seen := make(map[any]struct{}, total)
		for _, p := range live {
			vs, ok := p.fields[f]
			if !ok {
				values = nil
				break
			}
			for _, k := range vs {
				if _, dup := seen[k]; !dup {
					seen[k] = struct{}{}
					values = append(values, k)
				}
			}
		}
		if values != nil {
			out.restrict(f, values)
		}
	}
	return out
}

func (p planBuilder) finish(fields []string) Plan {
	if p.none {
		return Plan{none: true, fields: fields}
	}
	plan := Plan{ranges: p.ranges, exact: p.exact, fields: fields}
	for _, f := range sortedKeys(p.fields) {
		plan.terms = append(plan.terms, Term{Field: f, Values: p.fields[f]})
	}
	return plan
}

// None reports that no item can match: the scan can be skipped.
func (p Plan) None() bool { return p.none }

// Exact reports that the candidates Postings.Candidates returns for this
// plan, when it returns any, are exactly the matches: the predicate can be
// skipped.
func (p Plan) Exact() bool { return p.exact }

// Fields lists every field the filter names, anywhere in it, sorted.
func (p Plan) Fields() []string { return p.fields }

// Terms returns the plan's equality terms, sorted by field.
func (p Plan) Terms() []Term { return p.terms }
