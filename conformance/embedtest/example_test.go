package embedtest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/foliovec/folio/conformance/embedtest"
	"github.com/foliovec/folio/core"
)

// lengthModel embeds a text as [1, len(text)]: well-formed, but it tells
// apart only texts of different lengths.
type lengthModel struct{}

func (lengthModel) MaxTokens() int { return 100 }

func (lengthModel) CreateEmbeddings(ctx context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	if err := ctx.Err(); err != nil {
		ee := &core.EmbeddingsError{Status: core.EmbeddingsCancelled, Message: err.Error(), Err: err}
		return core.EmbeddingsResponse{Status: ee.Status, Message: ee.Message}, ee
	}
	out := make([][]float32, len(inputs))
	for i, in := range inputs {
		out[i] = []float32{1, float32(len(in))}
	}
	return core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: out}, nil
}

// Check runs the suite outside go test. lengthModel follows every rule, but
// it does not have unit length, which it would claim with Normalized.
func ExampleCheck() {
	newModel := func(testing.TB) core.EmbeddingsModel { return lengthModel{} }

	fmt.Println(embedtest.Check(context.Background(), newModel, embedtest.Capabilities{Dimensions: 2}))

	err := embedtest.Check(context.Background(), newModel, embedtest.Capabilities{Normalized: true})
	fmt.Println(err != nil)
	// Output:
	// <nil>
	// true
}

func ExampleCheckResponse() {
	inputs := []string{"a", "b"}
	resp := core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: [][]float32{{1, 0}}}
	fmt.Println(embedtest.CheckResponse(inputs, resp, nil))
	// Output:
	// got 1 vectors for 2 inputs
}
