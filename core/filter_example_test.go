package core_test

import (
	"errors"
	"fmt"

	"github.com/foliovec/folio/core"
)

func ExampleParseFilter() {
	f, err := core.ParseFilter([]byte(`{"category": "news", "year": {"$gte": 2020}, "tag": {"$in": ["go", "db"]}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range []core.Metadata{
		{"category": "news", "year": 2021, "tag": "go"},
		{"category": "news", "year": 2019, "tag": "go"},
		{"category": "sport", "year": 2024, "tag": "db"},
	} {
		ok, _ := core.Select(m, f)
		fmt.Println(ok)
	}

	_, err = core.ParseFilter([]byte(`{"year": {"$foo": 1}}`))
	fmt.Println(err)
	fmt.Println(errors.Is(err, core.ErrInvalidFilter))
	// Output:
	// true
	// false
	// false
	// filter "year": unknown operator "$foo": invalid filter
	// true
}

func ExampleSelect() {
	f := core.Filter{
		"$or": []any{
			core.Filter{"lang": "go"},
			core.Filter{"stars": core.Filter{"$gt": 100}},
		},
	}
	ok, err := core.Select(core.Metadata{"lang": "rust", "stars": 250}, f)
	fmt.Println(ok, err)
	// Output: true <nil>
}

func ExampleNormalizedCosineSimilarity() {
	a, b := []float32{3, 4}, []float32{4, 3}
	fmt.Println(core.Norm(a))
	fmt.Printf("%.2f\n", core.NormalizedCosineSimilarity(a, core.Norm(a), b, core.Norm(b)))
	fmt.Printf("%.2f\n", core.CosineSimilarity(a, b))
	// Output:
	// 5
	// 0.96
	// 0.96
}
