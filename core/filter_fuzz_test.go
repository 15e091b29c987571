package core

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio/core/internal/filter"
	"github.com/foliovec/folio/core/jsvalue"
)

var filterSeeds = []string{
	`{}`, `null`, `[]`, `"x"`, `1`, `{"a":`, `{"a": 1} x`,
	`{"category": "news", "year": {"$gte": 2020}}`,
	`{"$and": [{"a": 1}, {"b": 2}]}`, `{"$and": []}`, `{"$or": []}`,
	`{"$and": [{"$or": [{"a": 1}, {"b": 2}]}, {"c": 3}]}`,
	`{"n": {"$eq": 5, "$ne": 4, "$gt": 4.9, "$gte": "5", "$lt": "0x10", "$lte": true}}`,
	`{"v": {"$in": ["foo", 42, true, null]}}`, `{"v": {"$nin": ["x42y", 42]}}`,
	`{"v": {"$in": "foo"}}`, `{"v": {"$foo": "bar"}}`, `{"v": {"$gt": 1, "x": 2}}`,
	`{"$foo": 1}`, `{"$eq": 1}`, `{"v": [1, 2]}`, `{"v": null}`, `{"v": {}}`,
	`{"$and": [1]}`, `{"$or": {"a": 1}}`, `{"v": {"$eq": [1]}}`, `{"v": {"$lt": {}}}`,
	`{"v": {"$in": [[1]]}}`, `{"a": {"$and": []}}`, `{"v": {"$gte": " 1e3 "}}`,
}

// FuzzParseFilter: ParseFilter never panics; it either returns a filter that
// compiles, or an error wrapping ErrInvalidFilter.
func FuzzParseFilter(f *testing.F) {
	for _, s := range filterSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		flt, err := ParseFilter(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidFilter) {
				t.Fatalf("ParseFilter(%q) error %v does not wrap ErrInvalidFilter", data, err)
			}
			if flt != nil {
				t.Fatalf("ParseFilter(%q) returned a filter with an error", data)
			}
			return
		}
		if _, err := compileFilter(flt); err != nil {
			t.Fatalf("ParseFilter(%q) accepted a filter compileFilter rejects: %v", data, err)
		}
		if _, err := Select(Metadata{"a": 1.0, "b": "x", "c": true}, flt); err != nil {
			t.Fatalf("Select with parsed filter %q: %v", data, err)
		}
	})
}

// FuzzSelect: for JSON metadata and a JSON filter (valid or not), Select
// never panics, agrees with refSelect, and every match satisfies the
// filter's plan.
func FuzzSelect(f *testing.F) {
	metas := []string{
		`{}`, `{"a": 1, "b": 2, "c": 3}`, `{"v": "foo"}`, `{"v": 42}`, `{"v": true}`, `{"v": null}`,
		`{"n": 5, "str": "hello"}`, `{"v": [1, "a"]}`, `{"v": {"x": 1}}`, `{"category": "news", "year": 2021}`,
	}
	for i, s := range filterSeeds {
		f.Add(metas[i%len(metas)], s)
	}
	f.Fuzz(func(t *testing.T, metaJSON, filterJSON string) {
		var m map[string]any
		if json.Unmarshal([]byte(metaJSON), &m) != nil {
			return
		}
		var flt map[string]any
		if json.Unmarshal([]byte(filterJSON), &flt) != nil {
			return
		}
		got, err := Select(Metadata(m), Filter(flt))
		want, wantErr := refSelect(m, flt)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("Select(%s, %s): error %v, reference error %v", metaJSON, filterJSON, err, wantErr)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidFilter) {
				t.Fatalf("Select error %v does not wrap ErrInvalidFilter", err)
			}
			return
		}
		if got != want {
			t.Fatalf("Select(%s, %s) = %v, reference says %v", metaJSON, filterJSON, got, want)
		}
		_, plan, err := planFilter(Filter(flt))
		if err != nil {
			t.Fatalf("planFilter: %v", err)
		}
		if got && plan.None() {
			t.Fatalf("filter %s matches %s but its plan says none", filterJSON, metaJSON)
		}
		for _, term := range plan.Terms() {
			if !got {
				break
			}
			k, ok := filter.MetadataKey(m[term.Field])
			if !ok || !slices.Contains(term.Values, k) {
				t.Fatalf("filter %s matches %s but %q is not one of %v", filterJSON, metaJSON, term.Field, term.Values)
			}
		}
	})
}

// refSelect is a direct interpreter of the filter rules documented on
// Filter, for JSON-decoded values (float64, string, bool, nil, []any,
// map[string]any). It evaluates every clause, without short-cuts, so that it
// finds every invalid part of the filter. It shares one piece with the
// implementation, JS string-to-number conversion (jsStringToNumber), which
// TestJSStringToNumber checks on its own.
func refSelect(m map[string]any, f map[string]any) (bool, error) {
	errInvalid := ErrInvalidFilter
	result := true
	for key, val := range f {
		switch {
		case key == "$and" || key == "$or":
			list, ok := val.([]any)
			if !ok {
				return false, errInvalid
			}
			any1, all := false, true
			for _, e := range list {
				sub, ok := e.(map[string]any)
				if !ok {
					return false, errInvalid
				}
				r, err := refSelect(m, sub)
				if err != nil {
					return false, err
				}
				any1 = any1 || r
				all = all && r
			}
			if key == "$and" && !all || key == "$or" && !any1 {
				result = false
			}
		case strings.HasPrefix(key, "$"):
			return false, errInvalid
		default:
			r, err := refField(m[key], val)
			if err != nil {
				return false, err
			}
			if !r {
				result = false
			}
		}
	}
	return result, nil
}

func refIsScalar(v any) bool {
	switch v.(type) {
	case string, float64, bool:
		return true
	}
	return false
}

func refEqual(a, b any) bool {
	return refIsScalar(a) && refIsScalar(b) && a == b
}

func refField(value, cond any) (bool, error) {
	present := value != nil
	switch c := cond.(type) {
	case nil:
		return false, nil
	case []any:
		return false, ErrInvalidFilter
	case map[string]any:
		result := present
		for op, x := range c {
			var pass bool
			switch op {
			case "$eq", "$ne":
				if !refIsScalar(x) && x != nil {
					return false, ErrInvalidFilter
				}
				pass = refEqual(value, x) == (op == "$eq")
			case "$gt", "$gte", "$lt", "$lte":
				var n float64
				switch x := x.(type) {
				case float64:
					n = x
				case string:
					n = jsvalue.ToNumber(x)
				case bool:
					if x {
						n = 1
					}
				case nil:
				default:
					return false, ErrInvalidFilter
				}
				v, isNum := value.(float64)
				switch op {
				case "$gt":
					pass = isNum && v > n
				case "$gte":
					pass = isNum && v >= n
				case "$lt":
					pass = isNum && v < n
				case "$lte":
					pass = isNum && v <= n
				}
			case "$in", "$nin":
				list, ok := x.([]any)
				if !ok {
					return false, ErrInvalidFilter
				}
				member := false
				for _, e := range list {
					if !refIsScalar(e) && e != nil {
						return false, ErrInvalidFilter
					}
					member = member || refEqual(value, e)
				}
				pass = member == (op == "$in")
			default:
				return false, ErrInvalidFilter
			}
			if !pass {
				result = false
			}
		}
		return result, nil
	default:
		if !refIsScalar(cond) {
			return false, ErrInvalidFilter
		}
		return refEqual(value, cond), nil
	}
}
