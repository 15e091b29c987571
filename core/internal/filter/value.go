package filter

import (
	"fmt"
	"math"
	"reflect"
	"slices"
)

// The values filters compare: scalars converted once, sets of them, the
// objects and arrays a filter is made of, and JavaScript's string-to-number
// conversion that the range operators use.

// scalarSet is the operand of $in or $nin.
type scalarSet struct {
	strings  map[string]struct{}
	numbers  map[float64]struct{}
	hasTrue  bool
	hasFalse bool
	keys     []any // distinct keys in first-appearance order, for the plan
	// allPlanScalars: every element is a string, number or boolean.
	allPlanScalars bool
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
	var seen map[any]struct{}
	for _, s := range ss {
		k, ok := planKey(s)
		if !ok {
			continue
		}
		if seen == nil && len(keys) >= 8 {
			seen = keySet(keys)
		}
		if seen != nil {
			if _, dup := seen[k]; dup {
				continue
			}
			seen[k] = struct{}{}
		} else if slices.Contains(keys, k) {
			continue
		}
		keys = append(keys, k)
	}
	return keys
}

// planKey is the plan key of s: a string, a float64 (-0 as 0) or a bool;
// ok is false for null, NaN and other values, which match nothing.
func planKey(s scalar) (any, bool) {
	switch s.kind {
	case kindString:
		return s.s, true
	case kindNumber:
		if math.IsNaN(s.f) {
			return nil, false
		}
		return s.f + 0, true // -0 → 0
	case kindBool:
		return s.b, true
	}
	return nil, false
}

// keySet is the set of plan keys in keys.
func keySet(keys []any) map[any]struct{} {
	set := make(map[any]struct{}, len(keys))
	for _, k := range keys {
		set[k] = struct{}{}
	}
	return set
}

// intersectKeys returns the keys of a that are also in b, in a's order.
func intersectKeys(a, b []any) []any {
	in := keySet(b)
	out := make([]any, 0, min(len(a), len(b)))
	for _, k := range a {
		if _, ok := in[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

var objectType = reflect.TypeFor[map[string]any]()

// asObject returns v as a filter object when it is a map with string keys.
func asObject(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, true
	case nil:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	if rv.Type().ConvertibleTo(objectType) { // a named map[string]any: core.Filter, core.Metadata
		return rv.Convert(objectType).Interface().(map[string]any), true
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
