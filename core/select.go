package core

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ParseFilter decodes a filter from JSON text, as the gRPC server and the
// CLI receive it, and validates it. Numbers decode as float64.
//
// The JSON value null is no filter: it returns a nil Filter, which matches
// everything (Vectra's select(metadata, null) is true). Invalid JSON, a
// value that is not an object, and an object that is not a valid filter
// (see [Filter]) are errors wrapping [ErrInvalidFilter].
func ParseFilter(jsonText []byte) (Filter, error) {
	var v any
	if err := json.Unmarshal(jsonText, &v); err != nil {
		return nil, fmt.Errorf("core: parse filter: %w: %w", ErrInvalidFilter, err)
	}
	if v == nil {
		return nil, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		trimmed := bytes.TrimSpace(jsonText)
		return nil, fmt.Errorf("core: parse filter: want a JSON object, got %s: %w", jsonKind(trimmed), ErrInvalidFilter)
	}
	f := Filter(obj)
	if _, err := compileFilter(f); err != nil {
		return nil, err
	}
	return f, nil
}

// jsonKind names the kind of a valid, trimmed JSON value by its first byte.
func jsonKind(b []byte) string {
	switch b[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// Select reports whether metadata m matches filter f (Vectra's
// ItemSelector.select). A nil or empty filter matches everything. An
// invalid filter is an error wrapping [ErrInvalidFilter]. To test many
// items against one filter, the engine compiles it once instead.
func Select(m Metadata, f Filter) (bool, error) {
	match, err := compileFilter(f)
	if err != nil {
		return false, err
	}
	return match(m), nil
}
