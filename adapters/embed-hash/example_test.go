package embedhash_test

import (
	"context"
	"fmt"

	"github.com/foliovec/folio/adapters/embed-hash"
)

func ExampleNew() {
	model := embedhash.New(&embedhash.Options{Dimensions: 32})

	resp, err := model.CreateEmbeddings(context.Background(), []string{
		"vector database search",
		"Search the vector database!",
		"banana bread recipe",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Status, len(resp.Output), len(resp.Output[0]))
	// Vectors have unit length, so their dot product is their cosine:
	// shared words score high, other words score zero.
	fmt.Printf("%.2f\n", dot(resp.Output[0], resp.Output[1]))
	fmt.Printf("%.2f\n", dot(resp.Output[0], resp.Output[2]))
	// Output:
	// success 3 32
	// 0.86
	// 0.00
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
