package core

import (
	"github.com/foliovec/folio/core/internal/filter"
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
//     key, for example `filter "year": unknown operator "$foo": invalid filter`.
//     Vectra treated these as silent equality or threw a TypeError.
//
// Objects may be Filter, map[string]any or Metadata (or any map with
// string keys); arrays may be []any or any other slice.
//
// Limits: a filter nests at most [MaxFilterDepth] objects deep, holds at
// most [MaxFilterClauses] clauses in all (object keys and $and/$or
// elements) and at most [MaxFilterValues] $in/$nin values in all, and no
// object may contain itself; a filter beyond them is ErrInvalidFilter. Within them, compiling a filter costs
// time and memory linear in its size (well under a millisecond for the
// largest), so a filter from an untrusted client cannot stall or exhaust a
// process.
type Filter map[string]any

// Limits on a filter's shape; a filter beyond them is ErrInvalidFilter.
const (
	// MaxFilterDepth is the deepest a filter's objects nest: the top level
	// is depth 1, each $and/$or element and each operator object one more.
	MaxFilterDepth = filter.MaxDepth
	// MaxFilterClauses is the most object keys and $and/$or elements a
	// filter holds in all.
	MaxFilterClauses = filter.MaxClauses
	// MaxFilterValues is the most $in and $nin values a filter holds in
	// all.
	MaxFilterValues = filter.MaxValues
)

// ParseFilter decodes a filter from JSON text, as the gRPC server and the
// CLI receive it, and validates it. Numbers decode as float64.
//
// The JSON value null is no filter: it returns a nil Filter, which matches
// everything (Vectra's select(metadata, null) is true). Invalid JSON, a
// value that is not an object, and an object that is not a valid filter
// (see [Filter]) are errors wrapping [ErrInvalidFilter].
func ParseFilter(jsonText []byte) (Filter, error) {
	f, err := filter.Parse(jsonText)
	return Filter(f), err
}

// Select reports whether metadata m matches filter f (Vectra's
// ItemSelector.select). A nil or empty filter matches everything. An
// invalid filter is an error wrapping [ErrInvalidFilter]. To test many
// items against one filter, the engine compiles it once instead.
func Select(m Metadata, f Filter) (bool, error) {
	match, _, err := filter.Compile(f)
	if err != nil {
		return false, err
	}
	return match(m), nil
}
