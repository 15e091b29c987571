package filter

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/foliovec/folio/core/jsvalue"
)

// ErrInvalid is wrapped by every error for a filter that breaks the
// grammar or a limit; core exports it as ErrInvalidFilter.
var ErrInvalid = errors.New("invalid filter")

// Limits on a filter's shape; a filter beyond them is ErrInvalid.
const (
	// MaxDepth is the deepest a filter's objects nest: the top level
	// is depth 1, each $and/$or element and each operator object one more.
	MaxDepth = 32
	// MaxClauses is the most object keys and $and/$or elements a
	// filter holds in all.
	MaxClauses = 1024
	// MaxValues is the most $in and $nin values a filter holds in
	// all.
	MaxValues = 4096
)

// Predicate reports whether metadata matches a compiled filter.
type Predicate func(map[string]any) bool

// Compile validates f and compiles it once into a Predicate, and returns
// its Plan from the same walk. A nil or empty filter matches everything
// (the Predicate is nil only with an error). An invalid filter is an error
// wrapping ErrInvalid that names the offending key.
//
// The Predicate does no operator lookups per item: each clause is a closure
// over its field name and its already-converted operands. It is safe for
// concurrent use and reads only the metadata passed to it.
func Compile(f map[string]any) (Predicate, Plan, error) {
	if len(f) == 0 {
		return matchAll, Plan{}, nil
	}
	c := filterCompiler{fields: map[string]struct{}{}}
	match, plan, err := c.object(f, true)
	if err != nil {
		return nil, Plan{}, err
	}
	return match, plan.finish(sortedKeys(c.fields)), nil
}

// Parse decodes a filter from JSON text and validates it: null is no
// filter (nil), anything but an object, or an object that is not a valid
// filter, an error wrapping ErrInvalid. Numbers decode as float64.
func Parse(jsonText []byte) (map[string]any, error) {
	var v any
	if err := json.Unmarshal(jsonText, &v); err != nil {
		return nil, fmt.Errorf("parse filter: %w: %w", ErrInvalid, err)
	}
	if v == nil {
		return nil, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("parse filter: want a JSON object, got %s: %w", describe(v), ErrInvalid)
	}
	if _, _, err := Compile(obj); err != nil {
		return nil, err
	}
	return obj, nil
}

func matchAll(map[string]any) bool  { return true }
func matchNone(map[string]any) bool { return false }

// filterCompiler walks a filter once, compiling its Predicate and building
// its plan, and enforces the limits. The path to the current position is
// kept as segments and joined only for an error message.
type filterCompiler struct {
	path    []string
	depth   int
	clauses int
	values  int
	active  []uintptr // identities of the objects on the path, for cycles
	fields  map[string]struct{}
}

// errorf is the error for an invalid filter at the current path, or at the
// current path's child key when key is not "".
func (c *filterCompiler) errorf(key, format string, args ...any) error {
	var b strings.Builder
	for _, seg := range c.path {
		if b.Len() > 0 && seg[0] != '[' {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	if key != "" {
		if b.Len() > 0 && key[0] != '[' {
			b.WriteByte('.')
		}
		b.WriteString(key)
	}
	return fmt.Errorf("filter %q: %s: %w", b.String(), fmt.Sprintf(format, args...), ErrInvalid)
}

// count adds n clauses to the filter's count.
func (c *filterCompiler) count(n int) error {
	c.clauses += n
	if c.clauses > MaxClauses {
		return c.errorf("", "more than %d clauses in all", MaxClauses)
	}
	return nil
}

// enter steps into the object at the current path (v, with n entries),
// checking depth, size and cycles; leave steps out.
func (c *filterCompiler) enter(v any, n int) error {
	if c.depth >= MaxDepth {
		return c.errorf("", "nested deeper than %d objects", MaxDepth)
	}
	id := identity(v)
	for _, a := range c.active {
		if a == id && id != 0 {
			return c.errorf("", "the filter contains itself")
		}
	}
	if err := c.count(n); err != nil {
		return err
	}
	c.depth++
	c.active = append(c.active, id)
	return nil
}

func (c *filterCompiler) leave() {
	c.depth--
	c.active = c.active[:len(c.active)-1]
}

// identity is the address of a map's data, which a map that contains itself
// shares with its copy inside it; 0 for anything else.
func identity(v any) uintptr {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map {
		return 0
	}
	return uintptr(rv.UnsafePointer())
}

// object compiles one filter object (the top level, or an element of
// $and/$or). top marks the top level, where an exact plan is possible.
func (c *filterCompiler) object(raw any, top bool) (Predicate, planBuilder, error) {
	obj, _ := asObject(raw)
	if err := c.enter(raw, len(obj)); err != nil {
		return nil, planBuilder{}, err
	}
	defer c.leave()
	keys := sortedKeys(obj)
	clauses := make([]Predicate, 0, len(keys))
	plan := planBuilder{}
	exact := false
	for _, k := range keys {
		v := obj[k]
		var (
			p   Predicate
			sub planBuilder
			err error
		)
		switch {
		case k == "$and" || k == "$or":
			p, sub, err = c.logical(k, v)
		case strings.HasPrefix(k, "$"):
			if isFieldOperator(k) {
				return nil, planBuilder{}, c.errorf(k, "operator %q needs a field (use {\"field\": {%q: ...}})", k, k)
			}
			return nil, planBuilder{}, c.errorf(k, "unknown operator %q", k)
		default:
			c.fields[k] = struct{}{}
			p, sub, err = c.field(k, v)
			exact = top && len(keys) == 1 && sub.exact
		}
		if err != nil {
			return nil, planBuilder{}, err
		}
		clauses = append(clauses, p)
		plan.and(sub)
	}
	plan.exact = exact && !plan.none
	return allOf(clauses), plan, nil
}

// logical compiles the operand of $and or $or.
func (c *filterCompiler) logical(op string, v any) (Predicate, planBuilder, error) {
	elems, ok := asArray(v)
	if !ok {
		return nil, planBuilder{}, c.errorf(op, "operator %q needs an array of filters, got %s", op, describe(v))
	}
	c.path = append(c.path, op)
	defer func() { c.path = c.path[:len(c.path)-1] }()
	if err := c.count(len(elems)); err != nil {
		return nil, planBuilder{}, err
	}
	subs := make([]Predicate, 0, len(elems))
	plans := make([]planBuilder, 0, len(elems))
	for i, e := range elems {
		if _, ok := asObject(e); !ok {
			return nil, planBuilder{}, c.errorf("["+strconv.Itoa(i)+"]", "operator %q needs filter objects, got %s", op, describe(e))
		}
		c.path = append(c.path, "["+strconv.Itoa(i)+"]")
		p, plan, err := c.object(e, false)
		c.path = c.path[:len(c.path)-1]
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

func allOf(ps []Predicate) Predicate {
	switch len(ps) {
	case 0:
		return matchAll
	case 1:
		return ps[0]
	case 2:
		a, b := ps[0], ps[1]
		return func(m map[string]any) bool { return a(m) && b(m) }
	}
	ps = slices.Clone(ps)
	return func(m map[string]any) bool {
		for _, p := range ps {
			if !p(m) {
				return false
			}
		}
		return true
	}
}

func anyOf(ps []Predicate) Predicate {
	switch len(ps) {
	case 0:
		return matchNone // Vectra: {"$or": []} matches nothing
	case 1:
		return ps[0]
	}
	return func(m map[string]any) bool {
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

// field compiles the clause for field.
func (c *filterCompiler) field(field string, v any) (Predicate, planBuilder, error) {
	if v == nil {
		// Vectra: a null (or undefined) filter value fails the clause.
		return matchNone, impossiblePlan(), nil
	}
	c.path = append(c.path, field)
	defer func() { c.path = c.path[:len(c.path)-1] }()
	var (
		test valueTest
		plan = planBuilder{}
	)
	if ops, ok := asObject(v); ok {
		if err := c.enter(v, len(ops)); err != nil {
			return nil, planBuilder{}, err
		}
		t, values, ranges, exact, err := c.operators(ops)
		c.leave()
		if err != nil {
			return nil, planBuilder{}, err
		}
		test = t
		if values != nil {
			plan.restrict(field, values)
		}
		if len(ranges) > 0 && !plan.none {
			plan.ranges = []rangeTerm{{field: field, ops: ranges}}
		}
		plan.exact = exact
	} else if _, isArray := asArray(v); isArray {
		return nil, planBuilder{}, c.errorf("", "an array is not a filter value (use {\"$in\": [...]} for membership)")
	} else {
		x, err := c.operandScalar("$eq", v)
		if err != nil {
			return nil, planBuilder{}, err
		}
		test = equalTo(x)
		plan.restrict(field, keysOf([]scalar{x}))
		plan.exact = isPlanScalar(x)
	}
	return func(m map[string]any) bool {
		v, ok := m[field]
		if !ok || v == nil {
			return false // missing fails every operator, $ne and $nin included
		}
		return test(toScalar(v))
	}, plan, nil
}

// operators compiles an operator object. values, when not nil, is the set
// of keys a matching value must be one of ($eq and $in), possibly empty;
// ranges are its range operators; exact is set when it is one $eq or $in
// of string, number or boolean operands.
func (c *filterCompiler) operators(ops map[string]any) (test valueTest, values []any, ranges []rangeOp, exact bool, err error) {
	keys := sortedKeys(ops)
	tests := make([]valueTest, 0, len(keys))
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
			s, err := c.operandScalar(op, x)
			if err != nil {
				return nil, nil, nil, false, err
			}
			if op == "$eq" {
				t = equalTo(s)
				restrict(keysOf([]scalar{s}))
				exact = len(keys) == 1 && isPlanScalar(s)
			} else {
				eq := equalTo(s)
				t = func(v scalar) bool { return !eq(v) }
			}
		case "$gt", "$gte", "$lt", "$lte":
			n, err := c.rangeOperand(op, x)
			if err != nil {
				return nil, nil, nil, false, err
			}
			t = compare(op, n)
			ranges = append(ranges, rangeOp{op: op, n: n})
		case "$in", "$nin":
			set, err := c.operandSet(op, x)
			if err != nil {
				return nil, nil, nil, false, err
			}
			if op == "$in" {
				t = set.contains
				restrict(set.keys)
				exact = len(keys) == 1 && set.allPlanScalars
			} else {
				t = func(v scalar) bool { return !set.contains(v) }
			}
		default:
			if strings.HasPrefix(op, "$") {
				return nil, nil, nil, false, c.errorf("", "unknown operator %q", op)
			}
			return nil, nil, nil, false, c.errorf("", "operator object has the plain key %q (an operator object holds only operators)", op)
		}
		tests = append(tests, t)
	}
	switch len(tests) {
	case 0:
		return func(scalar) bool { return true }, values, ranges, exact, nil
	case 1:
		return tests[0], values, ranges, exact, nil
	}
	return func(v scalar) bool {
		for _, t := range tests {
			if !t(v) {
				return false
			}
		}
		return true
	}, values, ranges, exact, nil
}

func isFieldOperator(op string) bool {
	switch op {
	case "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin":
		return true
	}
	return false
}

// isPlanScalar reports whether s is a string, number or boolean.
func isPlanScalar(s scalar) bool {
	switch s.kind {
	case kindString, kindNumber, kindBool:
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
func (c *filterCompiler) operandScalar(op string, x any) (scalar, error) {
	s := toScalar(x)
	if s.kind == kindOther {
		return scalar{}, c.errorf("", "operator %q needs a string, number, boolean or null, got %s", op, describe(x))
	}
	return s, nil
}

// rangeOperand converts the operand of a range operator as JS Number() does.
func (c *filterCompiler) rangeOperand(op string, x any) (float64, error) {
	s := toScalar(x)
	switch s.kind {
	case kindNumber:
		return s.f, nil
	case kindString:
		return jsvalue.ToNumber(s.s), nil
	case kindBool:
		if s.b {
			return 1, nil
		}
		return 0, nil
	case kindNull:
		return 0, nil
	}
	return 0, c.errorf("", "operator %q needs a number, got %s", op, describe(x))
}

// operandSet converts the operand of $in or $nin, an array of scalars.
func (c *filterCompiler) operandSet(op string, x any) (*scalarSet, error) {
	elems, ok := asArray(x)
	if !ok {
		return nil, c.errorf("", "operator %q needs an array, got %s", op, describe(x))
	}
	c.values += len(elems)
	if c.values > MaxValues {
		return nil, c.errorf("", "more than %d $in and $nin values in all", MaxValues)
	}
	set := &scalarSet{allPlanScalars: true, keys: make([]any, 0, len(elems))}
	for i, e := range elems {
		s := toScalar(e)
		fresh := false
		switch s.kind {
		case kindString:
			if set.strings == nil {
				set.strings = make(map[string]struct{}, len(elems))
			}
			_, dup := set.strings[s.s]
			set.strings[s.s], fresh = struct{}{}, !dup
		case kindNumber:
			if set.numbers == nil {
				set.numbers = map[float64]struct{}{}
			}
			_, dup := set.numbers[s.f]
			set.numbers[s.f], fresh = struct{}{}, !dup
		case kindBool:
			fresh = s.b && !set.hasTrue || !s.b && !set.hasFalse
			if s.b {
				set.hasTrue = true
			} else {
				set.hasFalse = true
			}
		case kindNull:
			set.allPlanScalars = false // matches nothing
		default:
			return nil, c.errorf("", "operator %q element %d must be a string, number, boolean or null, got %s", op, i, describe(e))
		}
		if k, ok := planKey(s); ok && fresh {
			set.keys = append(set.keys, k)
		}
	}
	return set, nil
}
