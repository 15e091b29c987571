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
