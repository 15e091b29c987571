package core

// Filter is a Mongo/Pinecone-style metadata filter:
// {"category": "news", "year": {"$gte": 2020}}.
type Filter map[string]any

// predicate reports whether metadata matches a compiled filter.
type predicate func(Metadata) bool

// compileFilter validates f and compiles it once into a predicate. A nil or
// empty filter matches everything. An invalid filter is an error wrapping
// ErrInvalidFilter that names the offending key.
//
// CONTRACT STUB: replaced by the real implementation (filter work item).
func compileFilter(f Filter) (predicate, error) {
	if len(f) == 0 {
		return func(Metadata) bool { return true }, nil
	}
	return nil, ErrInvalidFilter
}
