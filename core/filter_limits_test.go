package core

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// nestedAnd is a filter of depth levels: {"$and": [{"$and": [… {"k": 1}]}]}.
func nestedAnd(depth int) Filter {
	f := Filter{"k": 1}
	for range depth - 1 {
		f = Filter{"$and": []any{f}}
	}
	return f
}

// nestedAndOp is nestedAnd whose innermost clause is an operator object,
// one object deeper.
func nestedAndOp(depth int) Filter {
	f := Filter{"k": Filter{"$eq": 1}}
	for range depth - 2 {
		f = Filter{"$and": []any{f}}
	}
	return f
}

func inOf(n int) Filter {
	values := make([]any, n)
	for i := range values {
		values[i] = fmt.Sprint("v", i)
	}
	return Filter{"k": Filter{"$in": values}}
}

func orOf(n int) Filter {
	branches := make([]any, n)
	for i := range branches {
		branches[i] = Filter{"k": i}
	}
	return Filter{"$or": branches}
}

// A filter that contains itself, one nested too deep or one too large is
// ErrInvalidFilter, found at once, from every entry point that takes a
// filter; filters at the limits compile.
func TestFilterLimits(t *testing.T) {
	selfAnd := Filter{}
	selfAnd["$and"] = []any{selfAnd}
	selfDeep := map[string]any{}
	selfDeep["$or"] = []any{Filter{"$and": []any{selfDeep}}}
	cases := []struct {
		name   string
		filter Filter
		ok     bool
		msg    string
	}{
		{"a filter containing itself through $and", selfAnd, false, "contains itself"},
		{"a filter containing itself two levels down", Filter(selfDeep), false, "contains itself"},
		{"nesting at the depth limit compiles", nestedAnd(MaxFilterDepth), true, ""},
		{"nesting one level deeper", nestedAnd(MaxFilterDepth + 1), false, "nested deeper"},
		{"10,000 levels of $and", nestedAnd(10_000), false, "nested deeper"},
		{"an operator object at the depth limit compiles", nestedAndOp(MaxFilterDepth), true, ""},
		{"an operator object one level deeper", nestedAndOp(MaxFilterDepth + 1), false, "nested deeper"},
		{"$in at the value limit compiles", inOf(MaxFilterValues), true, ""},
		{"$in over the value limit", inOf(MaxFilterValues + 1), false, "values in all"},
		{"a 100,000-value $in", inOf(100_000), false, "values in all"},
		{"a 30,000-branch $or", orOf(30_000), false, "clauses in all"},
		{"$or at the clause limit compiles", orOf(MaxFilterClauses/2 - 1), true, ""},
		{"$or over the clause limit", orOf(MaxFilterClauses / 2), false, "clauses in all"},
	}
	ix, _ := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"k"}}})
	mustInsert(t, ix, "a", []float32{1, 0}, Metadata{"k": 1})
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls := map[string]error{}
			_, calls["Select"] = Select(Metadata{"k": 1}, tc.filter)
			_, calls["QueryItems"] = ix.QueryItems(ctx, []float32{1, 0}, "", 1, tc.filter, false)
			_, calls["ListItemsByMetadata"] = ix.ListItemsByMetadata(ctx, tc.filter)
			for name, err := range calls {
				switch {
				case tc.ok && err != nil:
					t.Errorf("%s: %v", name, err)
				case !tc.ok && !errors.Is(err, ErrInvalidFilter):
					t.Errorf("%s: err = %v, want ErrInvalidFilter", name, err)
				case !tc.ok && !strings.Contains(err.Error(), tc.msg):
					t.Errorf("%s: %v, want a message with %q", name, err, tc.msg)
				}
			}
		})
	}
}

// Compiling any accepted filter allocates memory linear in its size: a
// property test over random filters of every shape up to the limits.
func TestFilterCompileIsLinear(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var gen func(depth int, budget *int) Filter
	scalarOf := func() any {
		return []any{"a", "b", 1, 2.5, true, nil}[r.IntN(6)]
	}
	gen = func(depth int, budget *int) Filter {
		f := Filter{}
		for i := 0; i < 1+r.IntN(4) && *budget > 0; i++ {
			*budget--
			switch k := r.IntN(6); {
			case k == 0 && depth < MaxFilterDepth-1:
				n := 1 + r.IntN(1+min(*budget, 50))
				subs := make([]any, 0, n)
				for range n {
					if *budget <= 0 {
						break
					}
					*budget--
					subs = append(subs, gen(depth+1, budget))
				}
				f[[]string{"$and", "$or"}[r.IntN(2)]] = subs
			case k == 1:
				n := min(*budget, r.IntN(2000))
				*budget -= n
				vals := make([]any, n)
				for j := range vals {
					vals[j] = fmt.Sprint(j)
				}
				f[fmt.Sprint("f", r.IntN(5))] = Filter{[]string{"$in", "$nin"}[r.IntN(2)]: vals}
			case k == 2 && depth < MaxFilterDepth-1:
				*budget--
				f[fmt.Sprint("f", r.IntN(5))] = Filter{"$gte": r.IntN(10), "$ne": scalarOf()}
			default:
				f[fmt.Sprint("f", r.IntN(5))] = scalarOf()
			}
		}
		return f
	}
	worst := 0.0
	for i := range 200 {
		budget := MaxFilterClauses / 3
		f := gen(1, &budget)
		size := filterSize(f)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _, err := planFilter(f)
		runtime.ReadMemStats(&after)
		if err != nil {
			if errors.Is(err, ErrInvalidFilter) && strings.Contains(err.Error(), "in all") {
				continue
			}
			t.Fatalf("filter %d: %v", i, err)
		}
		perEntry := float64(after.TotalAlloc-before.TotalAlloc) / float64(size+1)
		worst = max(worst, perEntry)
		if perEntry > 1024 {
			t.Fatalf("filter %d of %d entries allocated %.0f bytes per entry", i, size, perEntry)
		}
	}
	t.Logf("worst: %.0f bytes allocated per filter entry", worst)
}

// filterSize counts a filter's entries as the limit does.
func filterSize(v any) int {
	n := 0
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Map:
		for it := rv.MapRange(); it.Next(); {
			n += 1 + filterSize(it.Value().Interface())
		}
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			n += 1 + filterSize(rv.Index(i).Interface())
		}
	}
	return n
}
