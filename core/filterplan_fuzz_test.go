package core

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/foliovec/folio/core/internal/meta"
)

// FuzzFilterPlan checks that a filter's plan and its predicate agree, from
// one walk: on random filters of every shape (nested $and/$or, equality,
// $in/$nin, $ne, ranges, null and mistyped operands) over random items
// indexed on some fields, the items a query selects through the plan's
// posting lists are exactly those the predicate accepts, and a plan
// trusted as exact selects them from the posting lists alone. The seeds
// run in make test; go test -fuzz FuzzFilterPlan explores further.
func FuzzFilterPlan(f *testing.F) {
	for seed := range uint64(24) {
		f.Add(seed, uint8(seed%3))
	}
	f.Fuzz(func(t *testing.T, seed uint64, indexing uint8) {
		r := rand.New(rand.NewPCG(seed, seed>>32|1))
		fields := []string{"f", "g", "h"}
		values := []any{"a", "b", "", "1", 1, 1.0, 2, int64(2), 0.5, 0, -1, true, false}
		operand := func() any {
			if r.IntN(12) == 0 {
				return nil
			}
			return values[r.IntN(len(values))]
		}
		var filter func(depth int) Filter
		clause := func(depth int) (string, any) {
			field := fields[r.IntN(len(fields))]
			switch k := r.IntN(9); {
			case k == 0 && depth < 4:
				subs := make([]any, r.IntN(4))
				for i := range subs {
					subs[i] = filter(depth + 1)
				}
				return []string{"$and", "$or"}[r.IntN(2)], subs
			case k == 1:
				in := make([]any, r.IntN(5))
				for i := range in {
					in[i] = operand()
				}
				return field, Filter{[]string{"$in", "$nin"}[r.IntN(2)]: in}
			case k == 2:
				ops := Filter{}
				for range 1 + r.IntN(2) {
					ops[[]string{"$gt", "$gte", "$lt", "$lte", "$eq", "$ne"}[r.IntN(6)]] = operand()
				}
				return field, ops
			default:
				return field, operand()
			}
		}
		filter = func(depth int) Filter {
			f := Filter{}
			for range 1 + r.IntN(2) {
				k, v := clause(depth)
				f[k] = v
			}
			return f
		}
		metas := make([]Metadata, 60+r.IntN(60))
		for i := range metas {
			m := Metadata{}
			for _, k := range fields {
				if r.IntN(5) > 0 {
					v, _ := meta.CleanValue(k, values[r.IntN(len(values))])
					m[k] = v
				}
			}
			metas[i] = m
		}
		indexed := [][]string{{"f"}, {"f", "g"}, {"f", "g", "h"}}[int(indexing)%3]
		s := &snapshot{config: MetadataConfig{Indexed: indexed}, meta: metas, ids: make([]string, len(metas))}
		s.postings = buildPostings(s)
		for range 50 {
			flt := filter(0)
			match, plan, err := planFilter(flt)
			if err != nil {
				t.Fatalf("filter %v: %v", flt, err)
			}
			var want []int32
			for i, m := range metas {
				if match(m) {
					want = append(want, int32(i))
				}
			}
			if plan.None() && len(want) > 0 {
				t.Fatalf("filter %v: the plan says none, the predicate matches %v", flt, want)
			}
			sel, err := newSelection(s, flt)
			if err != nil {
				t.Fatal(err)
			}
			var got []int32
			sel.Each(func(slot int32) { got = append(got, slot) })
			if !slices.Equal(got, want) {
				t.Fatalf("indexed %v filter %v: selection %v, predicate %v", indexed, flt, got, want)
			}
			if sel.Exact && !sel.None && !slices.Equal(sel.Cands, want) {
				t.Fatalf("indexed %v filter %v trusted as exact: postings %v, predicate %v", indexed, flt, sel.Cands, want)
			}
		}
	})
}
