package core

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/foliovec/folio/core/internal/meta"
)

// Posting lists only narrow: for every filter, the items a query considers
// are exactly those the filter's predicate accepts, and for the shapes the
// engine trusts without the predicate (exactOnPostings) the posting lists
// alone give the matches.
func TestPostingsAgreeWithThePredicate(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	pool := []any{"a", "b", "1", "", 1, 1.0, 2, int64(2), float32(0.5), 0.5, 0, -1, true, false}
	opPool := append(slices.Clone(pool), nil, []any{"x"}, 3.5)
	randomMeta := func() Metadata {
		m := Metadata{}
		for _, k := range []string{"f", "g"} {
			if r.IntN(5) > 0 {
				v, _ := meta.CleanValue(k, pool[r.IntN(len(pool))])
				m[k] = v
			}
		}
		return m
	}
	randomOperand := func() any { return opPool[r.IntN(len(opPool))] }
	randomFilter := func() Filter {
		field := []string{"f", "g"}[r.IntN(2)]
		rangeOperand := func() any { return []any{-1, 0, 0.5, 1, 2, "1", "x", true, nil, 1.5}[r.IntN(10)] }
		switch r.IntN(8) {
		case 6:
			return Filter{field: Filter{[]string{"$gt", "$gte", "$lt", "$lte"}[r.IntN(4)]: rangeOperand(), "$lte": rangeOperand()}}
		case 7:
			return Filter{"$and": []any{Filter{"f": Filter{"$gte": rangeOperand()}}, Filter{"g": Filter{"$lt": rangeOperand()}}}, "f": Filter{"$ne": randomOperand()}}
		case 0:
			return Filter{field: randomOperand()}
		case 1:
			return Filter{field: Filter{"$eq": randomOperand()}}
		case 2:
			var in []any
			for range r.IntN(4) {
				in = append(in, randomOperand())
			}
			return Filter{field: Filter{"$in": in}}
		case 3:
			return Filter{field: map[string]any{"$in": []any{randomOperand(), randomOperand()}, "$ne": randomOperand()}}
		case 4:
			return Filter{"f": randomOperand(), "g": Filter{"$in": []any{randomOperand()}}}
		default:
			return Filter{"$and": []any{Filter{field: randomOperand()}, Filter{"$or": []any{Filter{"g": randomOperand()}, Filter{"g": randomOperand()}}}}}
		}
	}
	for _, indexed := range [][]string{{"f"}, {"f", "g"}} {
		meta := make([]Metadata, 300)
		for i := range meta {
			meta[i] = randomMeta()
		}
		s := &snapshot{config: MetadataConfig{Indexed: indexed}, meta: meta, ids: make([]string, len(meta))}
		s.postings = buildPostings(s)
		checked, exact := 0, 0
		for range 2000 {
			f := randomFilter()
			match, err := compileFilter(f)
			if err != nil {
				continue // an operand the filter refuses (a slice)
			}
			checked++
			var want []int32
			for i, m := range meta {
				if match(m) {
					want = append(want, int32(i))
				}
			}
			sel, err := newSelection(s, f)
			if err != nil {
				t.Fatal(err)
			}
			var got []int32
			sel.Each(func(slot int32) { got = append(got, slot) })
			if !slices.Equal(got, want) {
				t.Fatalf("indexed %v filter %v: selection %v, predicate %v", indexed, f, got, want)
			}
			if sel.Exact {
				exact++
				cands := sel.Cands
				if sel.None {
					cands = nil
				}
				if !slices.Equal(cands, want) {
					t.Fatalf("indexed %v filter %v trusted as exact: postings %v, predicate %v", indexed, f, cands, want)
				}
			}
		}
		if checked < 1000 || exact < 200 {
			t.Fatalf("only %d filters checked, %d trusted as exact", checked, exact)
		}
	}
}

func TestPostingsAppendSharesNothingVisible(t *testing.T) {
	t.Run("an append-only commit leaves the parent's lists as they were", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"c"}}})
		for i := range 5 {
			mustInsert(t, ix, fmt.Sprint(i), []float32{1}, Metadata{"c": "x"})
		}
		_, plan, _ := planFilter(Filter{"c": "x"})
		list := func(s *snapshot) []int32 {
			slots, _ := s.postings.Candidates(plan)
			return slots
		}
		parent := ix.cur.Load()
		before := slices.Clone(list(parent))
		mustInsert(t, ix, "5", []float32{1}, Metadata{"c": "x"})
		if got := list(parent); !slices.Equal(got, before) {
			t.Fatalf("parent list changed: %v, was %v", got, before)
		}
		if got := list(ix.cur.Load()); len(got) != 6 {
			t.Fatalf("child list = %v", got)
		}
	})
}

func TestRangeFiltersNarrowOnIndexedNumbers(t *testing.T) {
	meta := make([]Metadata, 100)
	for i := range meta {
		meta[i] = Metadata{"year": float64(2000 + i%30), "name": fmt.Sprint("n", i)}
	}
	meta[5]["year"] = "2025" // a string never passes a range operator
	s := &snapshot{config: MetadataConfig{Indexed: []string{"year", "name"}}, meta: meta, ids: make([]string, len(meta))}
	s.postings = buildPostings(s)
	tests := []struct {
		name   string
		filter Filter
	}{
		{"one bound", Filter{"year": Filter{"$gte": 2025}}},
		{"two bounds", Filter{"year": Filter{"$gt": 2003, "$lte": 2005}}},
		{"a string operand converts as Number()", Filter{"year": Filter{"$lt": "2002"}}},
		{"inside $and with an equality", Filter{"$and": []any{Filter{"year": Filter{"$gte": 2010}}, Filter{"name": "n15"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := newSelection(s, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			match, _ := compileFilter(tt.filter)
			var want []int32
			for i, m := range meta {
				if match(m) {
					want = append(want, int32(i))
				}
			}
			if sel.Cands == nil || len(sel.Cands) > len(want)+len(want)/2+1 {
				t.Fatalf("candidates %v not narrowed (matches %v)", sel.Cands, want)
			}
			var got []int32
			sel.Each(func(slot int32) { got = append(got, slot) })
			if !slices.Equal(got, want) {
				t.Fatalf("got %v; want %v", got, want)
			}
		})
	}
}
