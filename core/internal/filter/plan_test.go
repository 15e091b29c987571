package filter

import (
	"math"
	"reflect"
	"testing"
)

type obj = map[string]any

func TestFilterPlan(t *testing.T) {
	type term = Term
	cases := []struct {
		name   string
		filter obj
		want   Plan
	}{
		{"empty filter has no terms", obj{}, Plan{}},
		{"implicit equality is a term", obj{"cat": "news"}, Plan{terms: []term{{"cat", []any{"news"}}}}},
		{"numbers are float64 keys", obj{"n": 3}, Plan{terms: []term{{"n", []any{3.0}}}}},
		{"$eq is a term", obj{"b": map[string]any{"$eq": true}}, Plan{terms: []term{{"b", []any{true}}}}},
		{"$in is a term of distinct values", obj{"k": map[string]any{"$in": []any{"a", 1, 1.0, "a", nil, math.NaN()}}},
			Plan{terms: []term{{"k", []any{"a", 1.0}}}}},
		{"terms are sorted by field", obj{"z": "1", "a": "2"}, Plan{terms: []term{{"a", []any{"2"}}, {"z", []any{"1"}}}}},
		{"$eq and $in on one field intersect", obj{"k": map[string]any{"$eq": "b", "$in": []any{"a", "b"}}},
			Plan{terms: []term{{"k", []any{"b"}}}}},
		{"$and terms combine", obj{"a": "1", "$and": []any{map[string]any{"b": "2"}, map[string]any{"a": map[string]any{"$in": []any{"1", "3"}}}}},
			Plan{terms: []term{{"a", []any{"1"}}, {"b", []any{"2"}}}}},
		{"contradicting equalities match nothing", obj{"k": 1.0, "$and": []any{map[string]any{"k": 2.0}}}, Plan{none: true}},
		{"$or of one field unites its values", obj{"$or": []any{map[string]any{"k": "a"}, map[string]any{"k": map[string]any{"$in": []any{"b", "c"}}}}},
			Plan{terms: []term{{"k", []any{"a", "b", "c"}}}}},
		{"$or over different fields gives no term", obj{"$or": []any{map[string]any{"a": "1"}, map[string]any{"b": "2"}}}, Plan{}},
		{"$or drops impossible branches", obj{"$or": []any{map[string]any{"a": nil}, map[string]any{"b": "2"}}},
			Plan{terms: []term{{"b", []any{"2"}}}}},
		{"empty $or matches nothing", obj{"$or": []any{}}, Plan{none: true}},
		{"null value matches nothing", obj{"a": nil}, Plan{none: true}},
		{"empty $in matches nothing", obj{"a": map[string]any{"$in": []any{}}}, Plan{none: true}},
		{"$in of only null matches nothing", obj{"a": map[string]any{"$in": []any{nil}}}, Plan{none: true}},
		{"$ne, $nin and ranges give no term", obj{"a": map[string]any{"$ne": "x", "$nin": []any{"y"}, "$gt": 1.0}}, Plan{}},
		{"empty $and gives no term", obj{"$and": []any{}}, Plan{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, got, err := Compile(tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			got.ranges, got.exact, got.fields = nil, false, nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("plan = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The plan's range terms, exactness and field list, from the same walk as
// its equality terms.
func TestFilterPlanRangesExactFields(t *testing.T) {
	cases := []struct {
		name   string
		filter obj
		ranges []rangeTerm
		exact  bool
		fields []string
	}{
		{"one scalar equality is exact", obj{"a": "x"}, nil, true, []string{"a"}},
		{"one $eq is exact", obj{"a": obj{"$eq": 2}}, nil, true, []string{"a"}},
		{"one $in of scalars is exact", obj{"a": obj{"$in": []any{"x", 2, true}}}, nil, true, []string{"a"}},
		{"$in with null is not exact", obj{"a": obj{"$in": []any{"x", nil}}}, nil, false, []string{"a"}},
		{"two fields are not exact", obj{"a": "x", "b": "y"}, nil, false, []string{"a", "b"}},
		{"$eq with $ne is not exact", obj{"a": obj{"$eq": "x", "$ne": "y"}}, nil, false, []string{"a"}},
		{"equality inside $and is not exact", obj{"$and": []any{obj{"a": "x"}}}, nil, false, []string{"a"}},
		{"range operators are range terms", obj{"n": obj{"$gte": 1, "$lt": "5"}},
			[]rangeTerm{{"n", []rangeOp{{"$gte", 1}, {"$lt", 5}}}}, false, []string{"n"}},
		{"range terms pass through $and", obj{"$and": []any{obj{"n": obj{"$gt": 1}}, obj{"m": obj{"$lte": 2}}}},
			[]rangeTerm{{"n", []rangeOp{{"$gt", 1}}}, {"m", []rangeOp{{"$lte", 2}}}}, false, []string{"m", "n"}},
		{"range terms do not pass through $or", obj{"$or": []any{obj{"n": obj{"$gt": 1}}}}, nil, false, []string{"n"}},
		{"fields of every branch are listed", obj{"$or": []any{obj{"a": 1}, obj{"$and": []any{obj{"b": 2}}}}, "c": nil},
			nil, false, []string{"a", "b", "c"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, got, err := Compile(tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.ranges, tc.ranges) || got.exact != tc.exact || !reflect.DeepEqual(got.fields, tc.fields) {
				t.Fatalf("ranges %v exact %v fields %v, want %v %v %v", got.ranges, got.exact, got.fields, tc.ranges, tc.exact, tc.fields)
			}
		})
	}
}
