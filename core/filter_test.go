package core

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/foliovec/folio/core/internal/filter"
	"github.com/foliovec/folio/core/jsvalue"
)

type selectCase struct {
	name     string
	metadata Metadata
	filter   Filter
	want     bool
}

func runSelectCases(t *testing.T, cases []selectCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Select(tc.metadata, tc.filter)
			if err != nil {
				t.Fatalf("Select(%v, %v): unexpected error %v", tc.metadata, tc.filter, err)
			}
			if got != tc.want {
				t.Fatalf("Select(%v, %v) = %v, want %v", tc.metadata, tc.filter, got, tc.want)
			}
		})
	}
}

// TestSelectVectraCases ports src/ItemSelector.spec.ts "select",
// except the cases Folio fixes (TestSelectFixes).
func TestSelectVectraCases(t *testing.T) {
	num := Metadata{"num": 5.0, "str": "hello"}
	runSelectCases(t, []selectCase{
		{"empty filter matches", Metadata{"a": 1.0}, Filter{}, true},
		{"nil filter matches", Metadata{"a": 1.0}, nil, true},
		{"plain key with missing metadata fails", Metadata{}, Filter{"unknown": "value"}, false},
		{"plain key with equal value passes", Metadata{"unknown": "value"}, Filter{"unknown": "value"}, true},
		{"null filter value fails", Metadata{"name": "alice"}, Filter{"name": nil}, false},
		{"$and with all sub-filters passing passes", Metadata{"a": 1.0, "b": 2.0},
			Filter{"$and": []any{map[string]any{"a": 1.0}, map[string]any{"b": 2.0}}}, true},
		{"$and with one sub-filter failing fails", Metadata{"a": 1.0, "b": 2.0},
			Filter{"$and": []any{map[string]any{"a": 1.0}, map[string]any{"b": 3.0}}}, false},
		{"empty $and passes", Metadata{}, Filter{"$and": []any{}}, true},
		{"nested $and/$or: first $or branch", Metadata{"a": 1.0, "c": 3.0}, nestedAndOr(), true},
		{"nested $and/$or: second $or branch", Metadata{"b": 2.0, "c": 3.0}, nestedAndOr(), true},
		{"nested $and/$or: $and sibling fails", Metadata{"a": 1.0, "c": 4.0}, nestedAndOr(), false},
		{"$or with one sub-filter passing passes", Metadata{"a": 1.0, "b": 3.0},
			Filter{"$or": []any{map[string]any{"a": 1.0}, map[string]any{"b": 2.0}}}, true},
		{"$or with all sub-filters failing fails", Metadata{"a": 1.0, "b": 2.0},
			Filter{"$or": []any{map[string]any{"a": 2.0}, map[string]any{"b": 3.0}}}, false},
		{"empty $or matches nothing", Metadata{}, Filter{"$or": []any{}}, false},

		{"$eq equal number passes", num, Filter{"num": map[string]any{"$eq": 5.0}}, true},
		{"$eq other number fails", num, Filter{"num": map[string]any{"$eq": 4.0}}, false},
		{"$ne other number passes", num, Filter{"num": map[string]any{"$ne": 4.0}}, true},
		{"$ne equal number fails", num, Filter{"num": map[string]any{"$ne": 5.0}}, false},
		{"$gt smaller operand passes", num, Filter{"num": map[string]any{"$gt": 4.0}}, true},
		{"$gt equal operand fails", num, Filter{"num": map[string]any{"$gt": 5.0}}, false},
		{"$gt fractional operand passes", num, Filter{"num": map[string]any{"$gt": 4.9}}, true},
		{"$gt on string metadata fails", num, Filter{"str": map[string]any{"$gt": "a"}}, false},
		{"$gte equal operand passes", num, Filter{"num": map[string]any{"$gte": 5.0}}, true},
		{"$gte larger operand fails", num, Filter{"num": map[string]any{"$gte": 6.0}}, false},
		{"$gte on string metadata fails", num, Filter{"str": map[string]any{"$gte": "a"}}, false},
		{"$lt larger operand passes", num, Filter{"num": map[string]any{"$lt": 6.0}}, true},
		{"$lt equal operand fails", num, Filter{"num": map[string]any{"$lt": 5.0}}, false},
		{"$lt on string metadata fails", num, Filter{"str": map[string]any{"$lt": "z"}}, false},
		{"$lte equal operand passes", num, Filter{"num": map[string]any{"$lte": 5.0}}, true},
		{"$lte smaller operand fails", num, Filter{"num": map[string]any{"$lte": 4.0}}, false},
		{"$lte on string metadata fails", num, Filter{"str": map[string]any{"$lte": "z"}}, false},

		{"$in: boolean not in string list fails", Metadata{"val": true}, Filter{"val": map[string]any{"$in": []any{"foo"}}}, false},
		{"$in: string member passes", Metadata{"val": "foo"}, Filter{"val": map[string]any{"$in": []any{"foo", "bar"}}}, true},
		{"$in: string non-member fails", Metadata{"val": "oo"}, Filter{"val": map[string]any{"$in": []any{"foo", "bar"}}}, false},
		{"$in: number not in string list fails", Metadata{"val": 42.0}, Filter{"val": map[string]any{"$in": []any{"foobar", "baz"}}}, false},
		{"$in: numeric string is not a number", Metadata{"val": "42"}, Filter{"val": map[string]any{"$in": []any{1.0, 2.0}}}, false},
		{"$nin: string member fails", Metadata{"val": "foo"}, Filter{"val": map[string]any{"$nin": []any{"foo", "bar"}}}, false},
		{"$nin: number not in string list passes", Metadata{"val": 42.0}, Filter{"val": map[string]any{"$nin": []any{"foobar", "baz"}}}, true},

		{"scalar equality passes", Metadata{"field": "bar"}, Filter{"field": "bar"}, true},
		{"scalar equality fails on another value", Metadata{"field": "bar"}, Filter{"field": "baz"}, false},
		{"operator object on a missing key fails", Metadata{}, Filter{"age": map[string]any{"$gt": 18.0}}, false},
		{"multi-field filter of scalars and operators passes", Metadata{"a": 1.0, "b": 2.0, "c": 3.0},
			Filter{"a": 1.0, "b": map[string]any{"$gt": 1.0}, "c": map[string]any{"$lt": 4.0}}, true},
		{"multi-field filter fails when one operator fails", Metadata{"a": 1.0, "b": 2.0, "c": 3.0},
			Filter{"a": 1.0, "b": map[string]any{"$gt": 2.0}, "c": map[string]any{"$lt": 4.0}}, false},
	})
}

func nestedAndOr() Filter {
	return Filter{"$and": []any{
		map[string]any{"$or": []any{map[string]any{"a": 1.0}, map[string]any{"b": 2.0}}},
		map[string]any{"c": 3.0},
	}}
}

// TestSelectFixes holds one named case per Vectra behaviour Folio fixes:
// $in and $nin are membership tests.
func TestSelectFixes(t *testing.T) {
	runSelectCases(t, []selectCase{
		{"$in matches numbers by value", Metadata{"n": 42.0}, Filter{"n": map[string]any{"$in": []any{42.0}}}, true},
		{"$in matches numbers of any Go type by value", Metadata{"n": int64(42)}, Filter{"n": map[string]any{"$in": []int{7, 42}}}, true},
		{"$in does not match a number inside a string", Metadata{"val": 42.0}, Filter{"val": map[string]any{"$in": []any{"x42y", "baz"}}}, false},
		{"$in does not match a number to its string form", Metadata{"val": 42.0}, Filter{"val": map[string]any{"$in": []any{"42"}}}, false},
		{"$in matches booleans by membership", Metadata{"b": true}, Filter{"b": map[string]any{"$in": []any{true}}}, true},
		{"$in does not match a boolean to another boolean", Metadata{"b": false}, Filter{"b": map[string]any{"$in": []any{true}}}, false},
		{"$in with an empty list matches nothing", Metadata{"n": 1.0}, Filter{"n": map[string]any{"$in": []any{}}}, false},
		{"$in with a null element matches nothing through it", Metadata{"n": 1.0}, Filter{"n": map[string]any{"$in": []any{nil}}}, false},
		{"$nin excludes numbers by value", Metadata{"val": 42.0}, Filter{"val": map[string]any{"$nin": []any{42.0}}}, false},
		{"$nin keeps a string that is only a substring of an element", Metadata{"val": "oo"}, Filter{"val": map[string]any{"$nin": []any{"foobar", "baz"}}}, true},
		{"$nin keeps a number contained in a string element", Metadata{"val": 42.0}, Filter{"val": map[string]any{"$nin": []any{"baz", "z42z"}}}, true},
		{"$nin keeps booleans that are not members", Metadata{"val": true}, Filter{"val": map[string]any{"$nin": []any{"foo"}}}, true},
		{"$nin excludes booleans that are members", Metadata{"val": true}, Filter{"val": map[string]any{"$nin": []any{true}}}, false},
		{"$nin with an empty list keeps every present value", Metadata{"n": 1.0}, Filter{"n": map[string]any{"$nin": []any{}}}, true},
	})
}

// TestSelectSemantics pins the rules Folio keeps from Vectra that its spec
// does not test directly.
func TestSelectSemantics(t *testing.T) {
	runSelectCases(t, []selectCase{
		{"$ne on a missing key fails", Metadata{}, Filter{"k": map[string]any{"$ne": "x"}}, false},
		{"$nin on a missing key fails", Metadata{}, Filter{"k": map[string]any{"$nin": []any{"x"}}}, false},
		{"$ne on a nil value fails", Metadata{"k": nil}, Filter{"k": map[string]any{"$ne": "x"}}, false},
		{"scalar equality on a nil value fails", Metadata{"k": nil}, Filter{"k": "x"}, false},
		{"empty operator object passes when the field exists", Metadata{"k": "x"}, Filter{"k": map[string]any{}}, true},
		{"empty operator object fails when the field is missing", Metadata{}, Filter{"k": map[string]any{}}, false},
		{"equality is strict: a numeric string is not a number", Metadata{"k": "5"}, Filter{"k": 5.0}, false},
		{"equality is strict: a number is not a numeric string", Metadata{"k": 5.0}, Filter{"k": "5"}, false},
		{"equality is strict: true is not 1", Metadata{"k": true}, Filter{"k": 1.0}, false},
		{"booleans equal booleans", Metadata{"k": false}, Filter{"k": false}, true},
		{"$eq null matches nothing", Metadata{"k": "x"}, Filter{"k": map[string]any{"$eq": nil}}, false},
		{"$ne null matches a present field", Metadata{"k": "x"}, Filter{"k": map[string]any{"$ne": nil}}, true},
		{"$ne compares across types as not equal", Metadata{"k": "5"}, Filter{"k": map[string]any{"$ne": 5.0}}, true},
		{"every operator of an object must pass", Metadata{"k": 5.0}, Filter{"k": map[string]any{"$gt": 1.0, "$lt": 4.0}}, false},
		{"a range of two operators passes inside it", Metadata{"k": 3.0}, Filter{"k": map[string]any{"$gt": 1.0, "$lt": 4.0}}, true},
		{"NaN metadata equals nothing", Metadata{"k": math.NaN()}, Filter{"k": math.NaN()}, false},
		{"negative zero equals zero", Metadata{"k": math.Copysign(0, -1)}, Filter{"k": 0.0}, true},
		{"a slice value never equals a scalar", Metadata{"k": []any{"x"}}, Filter{"k": "x"}, false},
		{"a slice value is not equal to a scalar for $ne", Metadata{"k": []any{"x"}}, Filter{"k": map[string]any{"$ne": "x"}}, true},
		{"a slice value is in no $in list", Metadata{"k": []any{"x"}}, Filter{"k": map[string]any{"$in": []any{"x"}}}, false},
		{"a map value fails range operators", Metadata{"k": map[string]any{"a": 1.0}}, Filter{"k": map[string]any{"$gte": 0.0}}, false},
		{"$and and fields combine with AND", Metadata{"a": 1.0, "b": 2.0},
			Filter{"a": 1.0, "$and": []any{map[string]any{"b": 3.0}}}, false},
		{"an empty object inside $or passes", Metadata{}, Filter{"$or": []any{map[string]any{}}}, true},
		{"$or inside $or", Metadata{"x": "b"},
			Filter{"$or": []any{map[string]any{"$or": []any{map[string]any{"x": "a"}, map[string]any{"x": "b"}}}}}, true},
		{"sub-filters may be Filter values", Metadata{"a": 1.0}, Filter{"$and": []Filter{{"a": 1.0}}}, true},
		{"operator objects may be Filter values", Metadata{"a": 1.0}, Filter{"a": Filter{"$gte": 1.0}}, true},
		{"keys are case-sensitive", Metadata{"Year": 2020.0}, Filter{"year": 2020.0}, false},
	})
}

type year int
type label string

// TestSelectGoTypes: any Go number compares by float64 value, named types by
// their kind, on both sides.
func TestSelectGoTypes(t *testing.T) {
	runSelectCases(t, []selectCase{
		{"int metadata equals float filter", Metadata{"k": 3}, Filter{"k": 3.0}, true},
		{"float metadata equals int filter", Metadata{"k": 3.0}, Filter{"k": 3}, true},
		{"uint8 metadata equals int64 filter", Metadata{"k": uint8(200)}, Filter{"k": int64(200)}, true},
		{"float32 metadata compares by value", Metadata{"k": float32(0.5)}, Filter{"k": map[string]any{"$lt": 0.75}}, true},
		{"named int metadata is a number", Metadata{"k": year(2020)}, Filter{"k": map[string]any{"$gte": 2020}}, true},
		{"named string filter is a string", Metadata{"k": "news"}, Filter{"k": label("news")}, true},
		{"typed string slice is an $in list", Metadata{"k": "b"}, Filter{"k": map[string]any{"$in": []string{"a", "b"}}}, true},
		{"typed float slice is an $in list", Metadata{"k": 2}, Filter{"k": map[string]any{"$in": []float64{1, 2}}}, true},
		{"int metadata is not a string", Metadata{"k": 3}, Filter{"k": "3"}, false},
		{"a pointer value equals nothing", Metadata{"k": new(int)}, Filter{"k": 0}, false},
	})
}

// TestSelectRangeOperandsConvertLikeJS: range operands go through JS
// Number(); metadata must be a number.
func TestSelectRangeOperandsConvertLikeJS(t *testing.T) {
	ten := Metadata{"n": 10.0, "s": "10"}
	runSelectCases(t, []selectCase{
		{"numeric string operand compares as a number", ten, Filter{"n": map[string]any{"$gt": "5"}}, true},
		{"numeric string operand compares numerically, not lexically", ten, Filter{"n": map[string]any{"$lt": "9"}}, false},
		{"padded hex string operand is a number", ten, Filter{"n": map[string]any{"$lt": " 0x1A "}}, true},
		{"empty string operand is zero", ten, Filter{"n": map[string]any{"$gt": ""}}, true},
		{"non-numeric string operand fails $gt", ten, Filter{"n": map[string]any{"$gt": "abc"}}, false},
		{"non-numeric string operand fails $lte", ten, Filter{"n": map[string]any{"$lte": "abc"}}, false},
		{"true operand is one", ten, Filter{"n": map[string]any{"$gt": true}}, true},
		{"false operand is zero", Metadata{"n": 0.0}, Filter{"n": map[string]any{"$gte": false}}, true},
		{"null operand is zero", Metadata{"n": -1.0}, Filter{"n": map[string]any{"$lt": nil}}, true},
		{"Infinity string operand", ten, Filter{"n": map[string]any{"$lt": "Infinity"}}, true},
		{"string metadata fails even with a string operand", ten, Filter{"s": map[string]any{"$gte": "1"}}, false},
		{"NaN operand fails $gte", ten, Filter{"n": map[string]any{"$gte": math.NaN()}}, false},
	})
}

func TestJSStringToNumber(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		in   string
		want float64
	}{
		{"", 0}, {"   ", 0}, {"42", 42}, {" 42\n", 42}, {"\u00a042\u2028", 42}, {"-1.5", -1.5}, {"+3", 3},
		{".5", 0.5}, {"5.", 5}, {"1e3", 1000}, {"1E-2", 0.01}, {"0x1A", 26}, {"0X1a", 26},
		{"0o17", 15}, {"0b101", 5}, {"Infinity", math.Inf(1)}, {"-Infinity", math.Inf(-1)}, {"1e400", math.Inf(1)},
		{"abc", nan}, {".", nan}, {"1e", nan}, {"e5", nan}, {"-0x1A", nan}, {"0x", nan}, {"0xg", nan},
		{"1_000", nan}, {"inf", nan}, {"NaN", nan}, {"infinity", nan}, {"1 2", nan}, {"0x1p3", nan}, {"++1", nan},
	}
	for _, tc := range cases {
		got := jsvalue.ToNumber(tc.in)
		if math.IsNaN(tc.want) != math.IsNaN(got) || (!math.IsNaN(got) && got != tc.want) {
			t.Errorf("jsvalue.ToNumber(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestCompileFilterRejectsInvalidFilters: malformed filters are errors that
// wrap ErrInvalidFilter and name the offending key (a fix: Vectra fell back
// to equality or threw a TypeError).
func TestCompileFilterRejectsInvalidFilters(t *testing.T) {
	cases := []struct {
		name   string
		filter Filter
		want   string // the whole message
	}{
		{"unknown operator is an error", Filter{"year": map[string]any{"$foo": 1.0}},
			`filter "year": unknown operator "$foo": invalid filter`},
		{"unknown operator is an error even beside known ones", Filter{"year": map[string]any{"$gt": 1.0, "$exists": true}},
			`filter "year": unknown operator "$exists": invalid filter`},
		{"operator object mixing operators and plain keys is an error", Filter{"year": map[string]any{"$gt": 1.0, "x": 2.0}},
			`filter "year": operator object has the plain key "x" (an operator object holds only operators): invalid filter`},
		{"nested object as a value is an error", Filter{"a": map[string]any{"b": 1.0}},
			`filter "a": operator object has the plain key "b" (an operator object holds only operators): invalid filter`},
		{"unknown top-level operator is an error", Filter{"$foo": 1.0},
			`filter "$foo": unknown operator "$foo": invalid filter`},
		{"field operator at the top level is an error", Filter{"$eq": 1.0},
			`filter "$eq": operator "$eq" needs a field (use {"field": {"$eq": ...}}): invalid filter`},
		{"$and in an operator object is an error", Filter{"a": map[string]any{"$and": []any{}}},
			`filter "a": unknown operator "$and": invalid filter`},
		{"non-array $in is an error", Filter{"tag": map[string]any{"$in": "news"}},
			`filter "tag": operator "$in" needs an array, got a string: invalid filter`},
		{"non-array $nin is an error", Filter{"tag": map[string]any{"$nin": 3.0}},
			`filter "tag": operator "$nin" needs an array, got a number: invalid filter`},
		{"null $in is an error", Filter{"tag": map[string]any{"$in": nil}},
			`filter "tag": operator "$in" needs an array, got null: invalid filter`},
		{"object element in $in is an error", Filter{"tag": map[string]any{"$in": []any{"a", map[string]any{}}}},
			`filter "tag": operator "$in" element 1 must be a string, number, boolean or null, got an object: invalid filter`},
		{"non-array $and is an error", Filter{"$and": map[string]any{"a": 1.0}},
			`filter "$and": operator "$and" needs an array of filters, got an object: invalid filter`},
		{"non-array $or is an error", Filter{"$or": "a"},
			`filter "$or": operator "$or" needs an array of filters, got a string: invalid filter`},
		{"non-object inside $and is an error", Filter{"$and": []any{map[string]any{"a": 1.0}, 2.0}},
			`filter "$and[1]": operator "$and" needs filter objects, got a number: invalid filter`},
		{"nested error names its path", Filter{"$or": []any{map[string]any{"$and": []any{map[string]any{"y": map[string]any{"$bad": 1.0}}}}}},
			`filter "$or[0].$and[0].y": unknown operator "$bad": invalid filter`},
		{"array as a field value is an error", Filter{"tag": []any{"a", "b"}},
			`filter "tag": an array is not a filter value (use {"$in": [...]} for membership): invalid filter`},
		{"array operand of $eq is an error", Filter{"tag": map[string]any{"$eq": []any{"a"}}},
			`filter "tag": operator "$eq" needs a string, number, boolean or null, got an array: invalid filter`},
		{"object operand of $ne is an error", Filter{"tag": map[string]any{"$ne": map[string]any{}}},
			`filter "tag": operator "$ne" needs a string, number, boolean or null, got an object: invalid filter`},
		{"array operand of $gt is an error", Filter{"n": map[string]any{"$gt": []any{1.0}}},
			`filter "n": operator "$gt" needs a number, got an array: invalid filter`},
		{"unsupported Go type is an error", Filter{"n": struct{}{}},
			`filter "n": operator "$eq" needs a string, number, boolean or null, got a struct {}: invalid filter`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := compileFilter(tc.filter)
			if !errors.Is(err, ErrInvalidFilter) {
				t.Fatalf("compileFilter(%v) error = %v, want ErrInvalidFilter", tc.filter, err)
			}
			if p != nil {
				t.Errorf("compileFilter returned a predicate with an error")
			}
			if err.Error() != tc.want {
				t.Errorf("message\n got %s\nwant %s", err, tc.want)
			}
			if _, serr := Select(Metadata{}, tc.filter); !errors.Is(serr, ErrInvalidFilter) {
				t.Errorf("Select error = %v, want ErrInvalidFilter", serr)
			}
		})
	}
}

func TestParseFilter(t *testing.T) {
	t.Run("object decodes with float64 numbers", func(t *testing.T) {
		f, err := ParseFilter([]byte(`{"category": "news", "year": {"$gte": 2020}, "$or": [{"a": true}, {"b": {"$in": [1, "x", null]}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		want := Filter{
			"category": "news",
			"year":     map[string]any{"$gte": 2020.0},
			"$or":      []any{map[string]any{"a": true}, map[string]any{"b": map[string]any{"$in": []any{1.0, "x", nil}}}},
		}
		if !reflect.DeepEqual(f, want) {
			t.Fatalf("ParseFilter = %#v, want %#v", f, want)
		}
		ok, err := Select(Metadata{"category": "news", "year": 2021.0, "b": 1.0}, f)
		if err != nil || !ok {
			t.Fatalf("Select = %v, %v; want true", ok, err)
		}
	})
	t.Run("null is no filter and matches everything", func(t *testing.T) {
		f, err := ParseFilter([]byte(" null "))
		if err != nil || f != nil {
			t.Fatalf("ParseFilter(null) = %v, %v; want nil, nil", f, err)
		}
		if ok, _ := Select(Metadata{"a": 1.0}, f); !ok {
			t.Fatal("nil filter did not match")
		}
	})
	t.Run("empty object matches everything", func(t *testing.T) {
		f, err := ParseFilter([]byte(`{}`))
		if err != nil || f == nil || len(f) != 0 {
			t.Fatalf("ParseFilter({}) = %v, %v", f, err)
		}
	})
	rejects := []struct{ name, in, msg string }{
		{"invalid JSON is an invalid filter", `{"a":`, "parse filter: invalid filter: unexpected end of JSON input"},
		{"empty input is an invalid filter", ``, "parse filter: invalid filter: unexpected end of JSON input"},
		{"trailing data is an invalid filter", `{} {}`, "parse filter: invalid filter: invalid character '{' after top-level value"},
		{"an array is not a filter", ` [1] `, "parse filter: want a JSON object, got an array: invalid filter"},
		{"a string is not a filter", `"x"`, "parse filter: want a JSON object, got a string: invalid filter"},
		{"a number is not a filter", `42`, "parse filter: want a JSON object, got a number: invalid filter"},
		{"a boolean is not a filter", `true`, "parse filter: want a JSON object, got a boolean: invalid filter"},
		{"an unknown operator is rejected at parse time", `{"year": {"$foo": 1}}`, `filter "year": unknown operator "$foo": invalid filter`},
		{"a number out of float64 range is an invalid filter", `{"a": 1e400}`, "parse filter: invalid filter: json: cannot unmarshal number 1e400 into Go value of type float64"},
	}
	for _, tc := range rejects {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseFilter([]byte(tc.in))
			if !errors.Is(err, ErrInvalidFilter) || f != nil {
				t.Fatalf("ParseFilter(%q) = %v, %v; want nil, ErrInvalidFilter", tc.in, f, err)
			}
			if err.Error() != tc.msg {
				t.Errorf("message\n got %s\nwant %s", err, tc.msg)
			}
		})
	}
}

// TestCompiledFilterIsReusable: one compiled predicate gives the same answers
// as Select for many items, and is safe to share between goroutines.
func TestCompiledFilterIsReusable(t *testing.T) {
	f := Filter{"kind": map[string]any{"$in": []any{"a", "b"}}, "n": map[string]any{"$gte": 2.0}}
	match, err := compileFilter(f)
	if err != nil {
		t.Fatal(err)
	}
	items := []Metadata{
		{"kind": "a", "n": 1.0}, {"kind": "a", "n": 2.0}, {"kind": "c", "n": 5.0}, {"kind": "b", "n": 9.0}, {},
	}
	want := []bool{false, true, false, true, false}
	done := make(chan []bool)
	for range 4 {
		go func() {
			got := make([]bool, len(items))
			for i, m := range items {
				got[i] = match(m)
			}
			done <- got
		}()
	}
	for range 4 {
		if got := <-done; !reflect.DeepEqual(got, want) {
			t.Fatalf("compiled predicate = %v, want %v", got, want)
		}
	}
}

// TestFilterPlanIsNecessary: every item the predicate accepts satisfies the
// plan, over a grid of items and filters.
func TestFilterPlanIsNecessary(t *testing.T) {
	values := []any{nil, "a", "b", 1.0, 2, true, false, []any{"a"}}
	var items []Metadata
	for _, x := range values {
		for _, y := range values {
			m := Metadata{}
			if x != nil {
				m["x"] = x
			}
			if y != nil {
				m["y"] = y
			}
			items = append(items, m)
		}
	}
	filters := []Filter{
		{"x": "a"},
		{"x": map[string]any{"$in": []any{"a", 1, true}}, "y": map[string]any{"$ne": "b"}},
		{"$or": []any{map[string]any{"x": "a"}, map[string]any{"x": 2.0, "y": "b"}}},
		{"$and": []any{map[string]any{"x": map[string]any{"$in": []any{"a", "b"}}}, map[string]any{"x": map[string]any{"$ne": "a"}}}},
		{"$or": []any{map[string]any{"x": "a"}, map[string]any{"y": "b"}}},
		{"x": map[string]any{"$eq": 1}, "$or": []any{map[string]any{"y": true}, map[string]any{"y": false}}},
	}
	withTerms := 0
	for _, f := range filters {
		match, plan, err := planFilter(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Terms()) > 0 {
			withTerms++
		}
		for _, m := range items {
			if !match(m) {
				continue
			}
			if plan.None() {
				t.Fatalf("filter %v: plan says none but %v matches", f, m)
			}
			for _, term := range plan.Terms() {
				k, ok := filter.MetadataKey(m[term.Field])
				if !ok || !containsKey(term.Values, k) {
					t.Fatalf("filter %v: %v matches but its %q is not in %v", f, m, term.Field, term.Values)
				}
			}
		}
	}
	if withTerms < len(filters)-1 {
		t.Fatalf("only %d of %d filters produced terms; the check is too weak", withTerms, len(filters))
	}
}

func containsKey(keys []any, k any) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

func TestMetadataKeyNormalisesScalars(t *testing.T) {
	cases := []struct {
		name string
		in   any
		want any
		ok   bool
	}{
		{"string stays a string", "a", "a", true},
		{"int becomes float64", 3, 3.0, true},
		{"float32 becomes float64", float32(0.5), 0.5, true},
		{"named string is a string", label("x"), "x", true},
		{"bool stays a bool", true, true, true},
		{"nil has no key", nil, nil, false},
		{"slice has no key", []any{1.0}, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := filter.MetadataKey(tc.in)
			if ok != tc.ok || got != tc.want {
				t.Fatalf("filter.MetadataKey(%v) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestFilterErrorsNameTheKeyDeterministically(t *testing.T) {
	f := Filter{"b": map[string]any{"$x": 1.0}, "a": map[string]any{"$y": 1.0}}
	for range 20 {
		_, err := compileFilter(f)
		if err == nil || !strings.Contains(err.Error(), `"a"`) {
			t.Fatalf("error = %v, want the first key in sorted order", err)
		}
	}
}
