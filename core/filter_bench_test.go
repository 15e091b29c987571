package core

import (
	"fmt"
	"testing"
)

func benchItems(n int) []Metadata {
	cats := []string{"news", "sport", "tech", "food"}
	items := make([]Metadata, n)
	for i := range items {
		items[i] = Metadata{
			"category":   cats[i%len(cats)],
			"year":       float64(2000 + i%25),
			"published":  i%3 == 0,
			"documentId": fmt.Sprintf("doc-%d", i/10),
		}
	}
	return items
}

var benchFilters = []struct {
	name   string
	filter Filter
}{
	{"equality", Filter{"category": "news"}},
	{"range", Filter{"year": map[string]any{"$gte": 2010.0, "$lt": 2020.0}}},
	{"in", Filter{"category": map[string]any{"$in": []any{"news", "tech", "x", "y", "z"}}}},
	{"mixed", Filter{
		"category": map[string]any{"$ne": "food"},
		"$or": []any{
			map[string]any{"year": map[string]any{"$gt": 2020.0}},
			map[string]any{"published": true},
		},
	}},
}

// BenchmarkSelect measures the per-item cost of a compiled filter (what a
// query pays per candidate); ns/op is per item.
func BenchmarkSelect(b *testing.B) {
	items := benchItems(4096)
	for _, bf := range benchFilters {
		b.Run("compiled/"+bf.name, func(b *testing.B) {
			match, err := compileFilter(bf.filter)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if match(items[i&4095]) {
					n++
				}
			}
			if n == 0 {
				b.Fatal("filter matched nothing")
			}
		})
	}
	// Select compiles on every call: the cost of a one-off check.
	b.Run("select/mixed", func(b *testing.B) {
		f := benchFilters[len(benchFilters)-1].filter
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := Select(items[i&4095], f); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Worst cases of the filter limits: compiling the largest accepted filters
// of each shape, and rejecting over-limit ones.
func BenchmarkFilterCompileLimits(b *testing.B) {
	selfAnd := Filter{}
	selfAnd["$and"] = []any{selfAnd}
	for _, bc := range []struct {
		name string
		f    Filter
		ok   bool
	}{
		{"accept/in-4096", inOf(MaxFilterValues), true},
		{"accept/or-511", orOf(MaxFilterClauses/2 - 1), true},
		{"accept/and-depth-32", nestedAnd(MaxFilterDepth), true},
		{"accept/or-340-of-in-12", orOfIn(MaxFilterClauses/3-1, MaxFilterValues/(MaxFilterClauses/3)), true},
		{"reject/in-100000", inOf(100_000), false},
		{"reject/or-30000", orOf(30_000), false},
		{"reject/and-depth-100000", nestedAnd(100_000), false},
		{"reject/self", selfAnd, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := planFilter(bc.f); (err == nil) != bc.ok {
					b.Fatal(err)
				}
			}
		})
	}
}

// orOfIn is an $or of n branches, each an $in of m values on one field.
func orOfIn(n, m int) Filter {
	branches := make([]any, n)
	for i := range branches {
		values := make([]any, m)
		for j := range values {
			values[j] = fmt.Sprint(i, "-", j)
		}
		branches[i] = Filter{"k": Filter{"$in": values}}
	}
	return Filter{"$or": branches}
}
