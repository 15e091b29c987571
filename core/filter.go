package core

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Filter is a Mongo/Pinecone-style metadata filter:
// {"category": "news", "year": {"$gte": 2020}}.
//
// A filter is an object whose clauses must all pass (implicit AND). A clause
// is one of
//
//   - "field": scalar — equality, as {"field": {"$eq": scalar}};
//   - "field": {operator: operand, ...} — every operator must pass;
//   - "$and": [filter, ...] — every sub-filter passes ([] passes);
//   - "$or": [filter, ...] — some sub-filter passes ([] fails).
//
// Operators: $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin. Semantics follow
// Vectra 0.15 except where Folio fixes it:
//
//   - A missing field, or one whose value is nil, fails every clause on it,
//     $ne and $nin included. {"field": null} matches nothing, and an empty
//     operator object {"field": {}} matches items that have the field.
//   - Equality is strict: strings equal strings, booleans equal booleans,
//     numbers equal numbers by float64 value, whatever their Go type
//     (int64(2) equals float64(2)); "5" does not equal 5. Values that are
//     not scalars (slices, maps) never equal anything. {"$eq": null} matches
//     nothing and {"$ne": null} matches every item that has the field.
//   - $gt, $gte, $lt, $lte pass only for numeric metadata. The operand is
//     converted as JavaScript's Number() would: a number as is, a string by
//     JS's string-to-number rules ("10" → 10, " 0x1A " → 26, "" → 0,
//     "abc" → NaN), true → 1, false → 0, null → 0. A NaN operand fails
//     every comparison.
//   - Fix: $in and $nin are membership tests of scalars: numbers match
//     numbers by value, strings match strings, booleans match booleans
//     (Vectra matched substrings of string elements and never matched
//     numbers or booleans). A null element matches nothing.
//   - Fix: an unknown operator (a "$"-key other than the ten above, at the
//     top level or inside an operator object), a plain key inside an
//     operator object, an array where an operator object is expected,
//     a non-array $in, $nin, $and or $or, a sub-filter that is not an
//     object, and an operand of an unsupported type (a slice or map where a
//     scalar is expected, a Go value that is not a string, number, bool or
//     nil) are errors wrapping [ErrInvalidFilter] that name the offending
//     key, for example `core: filter "year": unknown operator "$foo": invalid filter`.
//     Vectra treated these as silent equality or threw a TypeError.
//
// Objects may be Filter, map[string]any or Metadata (or any map with
// string keys); arrays may be []any or any other slice.
type Filter map[string]any

// predicate reports whether metadata matches a compiled filter.
type predicate func(Metadata) bool

// compileFilter validates f and compiles it once into a predicate. A nil or
// empty filter matches everything. An invalid filter is an error wrapping
// ErrInvalidFilter that names the offending key.
//
// The predicate does no operator lookups per item: each clause is a closure
// over its field name and its already-converted operands. It is safe for
// concurrent use and reads only the metadata passed to it.
func compileFilter(f Filter) (predicate, error) {
	match, _, err := planFilter(f)
	return match, err
}

// filterPlan tells the engine which items can match a filter without running
// it, so it can narrow candidates with posting lists (metadata value → item
// slots) and run the full predicate on the candidates only.
//
// For the ENGINE: call planFilter(f) instead of compileFilter(f) to get both.
// The plan is a conservative necessary condition, never sufficient:
//
//   - none: no item can match (e.g. {"$or": []}, {"k": null},
//     {"k": {"$in": []}}, or {"k": 1, "$and": [{"k": 2}]}); skip the scan.
//   - terms: for every term, a matching item's metadata[term.field],
//     normalised with metadataKey, is one of term.values. Intersect (across
//     terms) the unions (within a term) of the posting lists, then run the
//     predicate on each candidate; it may still reject some.
//   - no terms and not none: the plan says nothing; scan everything.
//
// Terms come from the conjunctive part of the filter only: top-level
// implicit equality, $eq and $in, recursively through $and, and through $or
// when every (not impossible) branch constrains the same field (the values
// are then united). $ne, $nin, range operators and other $or shapes add no
// term. Terms are sorted by field; values keep first-appearance order and
// are distinct keys of dynamic type string, float64 or bool (NaN, which
// matches nothing, is dropped).
type filterPlan struct {
	none  bool
	terms []filterTerm
}

// filterTerm: a matching item's metadata[field] is one of values.
type filterTerm struct {
	field  string
	values []any
}

// metadataKey normalises a metadata value to the key the filter plan uses:
// a string, a float64 (any Go number, by value) or a bool. ok is false for
// nil and for values no $eq or $in operand can equal (slices, maps, other
// types); such values belong in no posting list.
func metadataKey(v any) (key any, ok bool) {
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

// planFilter validates and compiles f like compileFilter and also returns
// its filterPlan.
func planFilter(f Filter) (predicate, filterPlan, error) {
	if len(f) == 0 {
		return matchAll, filterPlan{}, nil
	}
	match, plan, err := compileObject("", f)
	if err != nil {
		return nil, filterPlan{}, err
	}
	return match, plan.finish(), nil
}

func matchAll(Metadata) bool  { return true }
func matchNone(Metadata) bool { return false }

// filterError is the error for an invalid filter at path.
func filterError(path, format string, args ...any) error {
	return fmt.Errorf("core: filter %q: %s: %w", path, fmt.Sprintf(format, args...), ErrInvalidFilter)
}

// joinPath names key inside the object at path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// compileObject compiles one filter object (the top level, or an element of
// $and/$or) found at path.
func compileObject(path string, obj map[string]any) (predicate, planBuilder, error) {
	keys := sortedKeys(obj)
	clauses := make([]predicate, 0, len(keys))
	plan := planBuilder{}
	for _, k := range keys {
		v := obj[k]
		var (
			p   predicate
			sub planBuilder
			err error
		)
		switch {
		case k == "$and" || k == "$or":
			p, sub, err = compileLogical(joinPath(path, k), k, v)
		case strings.HasPrefix(k, "$"):
			if isFieldOperator(k) {
				return nil, planBuilder{}, filterError(joinPath(path, k), "operator %q needs a field (use {\"field\": {%q: ...}})", k, k)
			}
			return nil, planBuilder{}, filterError(joinPath(path, k), "unknown operator %q", k)
		default:
			p, sub, err = compileField(joinPath(path, k), k, v)
		}
		if err != nil {
			return nil, planBuilder{}, err
		}
		clauses = append(clauses, p)
		plan.and(sub)
	}
	return allOf(clauses), plan, nil
}

// compileLogical compiles the operand of $and or $or.
func compileLogical(path, op string, v any) (predicate, planBuilder, error) {
	elems, ok := asArray(v)
	if !ok {
		return nil, planBuilder{}, filterError(path, "operator %q needs an array of filters, got %s", op, describe(v))
	}
	subs := make([]predicate, 0, len(elems))
	plans := make([]planBuilder, 0, len(elems))
	for i, e := range elems {
		ep := fmt.Sprintf("%s[%d]", path, i)
		obj, ok := asObject(e)
		if !ok {
			return nil, planBuilder{}, filterError(ep, "operator %q needs filter objects, got %s", op, describe(e))
		}
		p, plan, err := compileObject(ep, obj)
		if err != nil {
			return nil, planBuilder{}, err
		}
		subs = append(subs, p)
		plans = append(plans, plan)
	}
	if op == "$and" {
		plan := planBuilder{}
		for _, s := range plans {
			plan.and(s)
		}
		return allOf(subs), plan, nil
	}
	return anyOf(subs), orPlans(plans), nil
}

func allOf(ps []predicate) predicate {
	switch len(ps) {
	case 0:
		return matchAll
	case 1:
		return ps[0]
	case 2:
		a, b := ps[0], ps[1]
		return func(m Metadata) bool { return a(m) && b(m) }
	}
	return func(m Metadata) bool {
		for _, p := range ps {
			if !p(m) {
				return false
			}
		}
		return true
	}
}

func anyOf(ps []predicate) predicate {
	switch len(ps) {
	case 0:
		return matchNone // Vectra: {"$or": []} matches nothing
	case 1:
		return ps[0]
	}
	return func(m Metadata) bool {
		for _, p := range ps {
			if p(m) {
				return true
			}
		}
		return false
	}
}

// valueTest tests a present, non-nil metadata value.
type valueTest func(scalar) bool

// compileField compiles the clause for field (named path in errors).
func compileField(path, field string, v any) (predicate, planBuilder, error) {
	if v == nil {
		// Vectra: a null (or undefined) filter value fails the clause.
		return matchNone, impossiblePlan(), nil
	}
	var (
		test valueTest
		plan = planBuilder{}
	)
	if ops, ok := asObject(v); ok {
		t, values, err := compileOperators(path, ops)
		if err != nil {
			return nil, planBuilder{}, err
		}
		test = t
		if values != nil {
			plan.restrict(field, values)
		}
	} else if _, isArray := asArray(v); isArray {
		return nil, planBuilder{}, filterError(path, "an array is not a filter value (use {\"$in\": [...]} for membership)")
	} else {
		x, err := operandScalar(path, "$eq", v)
		if err != nil {
			return nil, planBuilder{}, err
		}
		test = equalTo(x)
		plan.restrict(field, keysOf([]scalar{x}))
	}
	return func(m Metadata) bool {
		v, ok := m[field]
		if !ok || v == nil {
			return false // missing fails every operator, $ne and $nin included
		}
		return test(toScalar(v))
	}, plan, nil
}

// compileOperators compiles an operator object. values, when not nil, is the
// set of keys a matching value must be one of ($eq and $in), possibly empty.
func compileOperators(path string, ops map[string]any) (valueTest, []any, error) {
	keys := sortedKeys(ops)
	tests := make([]valueTest, 0, len(keys))
	var values []any
	restrict := func(vs []any) {
		if values == nil {
			values = vs
			return
		}
		values = intersectKeys(values, vs)
	}
	for _, op := range keys {
		x := ops[op]
		var t valueTest
		switch op {
		case "$eq", "$ne":
			s, err := operandScalar(path, op, x)
			if err != nil {
				return nil, nil, err
			}
			if op == "$eq" {
				t = equalTo(s)
				restrict(keysOf([]scalar{s}))
			} else {
				eq := equalTo(s)
				t = func(v scalar) bool { return !eq(v) }
			}
		case "$gt", "$gte", "$lt", "$lte":
			n, err := rangeOperand(path, op, x)
			if err != nil {
				return nil, nil, err
			}
			t = compare(op, n)
		case "$in", "$nin":
			set, err := operandSet(path, op, x)
			if err != nil {
				return nil, nil, err
			}
			if op == "$in" {
				t = set.contains
				restrict(set.keys)
			} else {
				t = func(v scalar) bool { return !set.contains(v) }
			}
		default:
			if strings.HasPrefix(op, "$") {
				return nil, nil, filterError(path, "unknown operator %q", op)
			}
			return nil, nil, filterError(path, "operator object has the plain key %q (an operator object holds only operators)", op)
		}
		tests = append(tests, t)
	}
	switch len(tests) {
	case 0:
		return func(scalar) bool { return true }, values, nil
	case 1:
		return tests[0], values, nil
	}
	return func(v scalar) bool {
		for _, t := range tests {
			if !t(v) {
				return false
			}
		}
		return true
	}, values, nil
}

func isFieldOperator(op string) bool {
	switch op {
	case "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin":
		return true
	}
	return false
}

// equalTo is strict equality with x; a null x equals nothing.
func equalTo(x scalar) valueTest {
	switch x.kind {
	case kindString:
		s := x.s
		return func(v scalar) bool { return v.kind == kindString && v.s == s }
	case kindNumber:
		f := x.f
		return func(v scalar) bool { return v.kind == kindNumber && v.f == f }
	case kindBool:
		b := x.b
		return func(v scalar) bool { return v.kind == kindBool && v.b == b }
	}
	return func(scalar) bool { return false }
}

func compare(op string, n float64) valueTest {
	switch op {
	case "$gt":
		return func(v scalar) bool { return v.kind == kindNumber && v.f > n }
	case "$gte":
		return func(v scalar) bool { return v.kind == kindNumber && v.f >= n }
	case "$lt":
		return func(v scalar) bool { return v.kind == kindNumber && v.f < n }
	default: // "$lte"
		return func(v scalar) bool { return v.kind == kindNumber && v.f <= n }
	}
}

// operandScalar converts the operand of op, which must be a scalar or null.
func operandScalar(path, op string, x any) (scalar, error) {
	s := toScalar(x)
	if s.kind == kindOther {
		return scalar{}, filterError(path, "operator %q needs a string, number, boolean or null, got %s", op, describe(x))
	}
	return s, nil
}

// rangeOperand converts the operand of a range operator as JS Number() does.
func rangeOperand(path, op string, x any) (float64, error) {
	s := toScalar(x)
	switch s.kind {
	case kindNumber:
		return s.f, nil
	case kindString:
		return jsStringToNumber(s.s), nil
	case kindBool:
		if s.b {
			return 1, nil
		}
		return 0, nil
	case kindNull:
		return 0, nil
	}
	return 0, filterError(path, "operator %q needs a number, got %s", op, describe(x))
}

// scalarSet is the operand of $in or $nin.
type scalarSet struct {
	strings  map[string]struct{}
	numbers  map[float64]struct{}
	hasTrue  bool
	hasFalse bool
	keys     []any // distinct keys in first-appearance order, for the plan
}

func (s *scalarSet) contains(v scalar) bool {
	switch v.kind {
	case kindString:
		_, ok := s.strings[v.s]
		return ok
	case kindNumber:
		_, ok := s.numbers[v.f]
		return ok
	case kindBool:
		if v.b {
			return s.hasTrue
		}
		return s.hasFalse
	}
	return false
}

func operandSet(path, op string, x any) (*scalarSet, error) {
	elems, ok := asArray(x)
	if !ok {
		return nil, filterError(path, "operator %q needs an array, got %s", op, describe(x))
	}
	set := &scalarSet{}
	scalars := make([]scalar, 0, len(elems))
	for i, e := range elems {
		s := toScalar(e)
		switch s.kind {
		case kindString:
			if set.strings == nil {
				set.strings = map[string]struct{}{}
			}
			set.strings[s.s] = struct{}{}
		case kindNumber:
			if set.numbers == nil {
				set.numbers = map[float64]struct{}{}
			}
			set.numbers[s.f] = struct{}{}
		case kindBool:
			if s.b {
				set.hasTrue = true
			} else {
				set.hasFalse = true
			}
		case kindNull:
			// matches nothing
		default:
			return nil, filterError(path, "operator %q element %d must be a string, number, boolean or null, got %s", op, i, describe(e))
		}
		scalars = append(scalars, s)
	}
	set.keys = keysOf(scalars)
	return set, nil
}

// scalarKind classifies a value for comparisons.
type scalarKind uint8

const (
	kindOther  scalarKind = iota // slices, maps, other types
	kindNull                     // nil
	kindString                   // any string kind
	kindNumber                   // any integer or float kind, as float64
	kindBool                     // any bool kind
)

// scalar is a value converted once for comparisons.
type scalar struct {
	kind scalarKind
	b    bool
	f    float64
	s    string
}

// toScalar classifies v. Common types take the fast path; named types
// (type Year int) go through reflection by their kind.
func toScalar(v any) scalar {
	switch x := v.(type) {
	case string:
		return scalar{kind: kindString, s: x}
	case float64:
		return scalar{kind: kindNumber, f: x}
	case bool:
		return scalar{kind: kindBool, b: x}
	case nil:
		return scalar{kind: kindNull}
	case int:
		return scalar{kind: kindNumber, f: float64(x)}
	case int64:
		return scalar{kind: kindNumber, f: float64(x)}
	case float32:
		return scalar{kind: kindNumber, f: float64(x)}
	case int32:
		return scalar{kind: kindNumber, f: float64(x)}
	case uint64:
		return scalar{kind: kindNumber, f: float64(x)}
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return scalar{kind: kindString, s: rv.String()}
	case reflect.Bool:
		return scalar{kind: kindBool, b: rv.Bool()}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return scalar{kind: kindNumber, f: float64(rv.Int())}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return scalar{kind: kindNumber, f: float64(rv.Uint())}
	case reflect.Float32, reflect.Float64:
		return scalar{kind: kindNumber, f: rv.Float()}
	}
	return scalar{kind: kindOther}
}

// keysOf returns the distinct plan keys of scalars, in order; nulls and NaN
// match nothing and are left out.
func keysOf(ss []scalar) []any {
	keys := make([]any, 0, len(ss))
	for _, s := range ss {
		var k any
		switch s.kind {
		case kindString:
			k = s.s
		case kindNumber:
			if math.IsNaN(s.f) {
				continue
			}
			k = s.f + 0 // -0 → 0
		case kindBool:
			k = s.b
		default:
			continue
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

func intersectKeys(a, b []any) []any {
	out := make([]any, 0, min(len(a), len(b)))
	for _, k := range a {
		if slices.Contains(b, k) {
			out = append(out, k)
		}
	}
	return out
}

func unionKeys(a, b []any) []any {
	out := slices.Clip(a)
	for _, k := range b {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// planBuilder accumulates a filterPlan: field → allowed keys, or none.
type planBuilder struct {
	none   bool
	fields map[string][]any
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
}

// orPlans ORs plans: impossible branches drop out; a field constrained in
// every remaining branch keeps the union of its values.
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
		values := live[0].fields[f]
		for _, p := range live[1:] {
			vs, ok := p.fields[f]
			if !ok {
				values = nil
				break
			}
			values = unionKeys(values, vs)
		}
		if values != nil {
			out.restrict(f, values)
		}
	}
	return out
}

func (p planBuilder) finish() filterPlan {
	if p.none {
		return filterPlan{none: true}
	}
	plan := filterPlan{}
	for _, f := range sortedKeys(p.fields) {
		plan.terms = append(plan.terms, filterTerm{field: f, values: p.fields[f]})
	}
	return plan
}

// asObject returns v as a filter object when it is a map with string keys.
func asObject(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, true
	case Filter:
		return x, true
	case Metadata:
		return x, true
	case nil:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	obj := make(map[string]any, rv.Len())
	it := rv.MapRange()
	for it.Next() {
		obj[it.Key().String()] = it.Value().Interface()
	}
	return obj, true
}

// asArray returns v as a list when it is a slice or an array.
func asArray(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case nil:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

// describe names v's type in error messages.
func describe(v any) string {
	if v == nil {
		return "null"
	}
	if _, ok := asArray(v); ok {
		return "an array"
	}
	if _, ok := asObject(v); ok {
		return "an object"
	}
	switch toScalar(v).kind {
	case kindString:
		return "a string"
	case kindNumber:
		return "a number"
	case kindBool:
		return "a boolean"
	}
	return fmt.Sprintf("a %T", v)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jsStringToNumber converts s as JavaScript's Number(s) does: surrounding
// white space is ignored, "" is 0, "Infinity" with an optional sign, 0x/0o/0b
// integers and decimal literals are numbers, anything else is NaN.
func jsStringToNumber(s string) float64 {
	s = strings.TrimFunc(s, isJSWhiteSpace)
	switch s {
	case "":
		return 0
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			digits := s[2:]
			for _, c := range digits {
				if !isDigitIn(c, base) {
					return math.NaN()
				}
			}
			n, _ := new(big.Int).SetString(digits, base)
			f, _ := new(big.Float).SetInt(n).Float64()
			return f
		}
	}
	if !isJSDecimal(s) {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeError(err) {
		return math.NaN()
	}
	return f
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func isDigitIn(c rune, base int) bool {
	switch {
	case c >= '0' && c <= '9':
		return int(c-'0') < base
	case c >= 'a' && c <= 'f':
		return base == 16
	case c >= 'A' && c <= 'F':
		return base == 16
	}
	return false
}

// isJSDecimal reports whether s is a StrDecimalLiteral without "Infinity":
// [+-] (digits [. digits] | . digits) [(e|E) [+-] digits].
func isJSDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intDigits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		intDigits++
	}
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			fracDigits++
		}
	}
	if intDigits+fracDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		expDigits := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			expDigits++
		}
		if expDigits == 0 {
			return false
		}
	}
	return i == len(s)
}

// isJSWhiteSpace is ECMAScript's StrWhiteSpaceChar: WhiteSpace or
// LineTerminator.
func isJSWhiteSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', '\u2028', '\u2029', '\ufeff':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}
