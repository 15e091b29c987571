// Package coretest holds what the tests of core's own packages (manager,
// migrate) share and cannot take from conformance/testkit, which imports
// core and so cannot be imported by core's module: an embeddings model, a
// table-test runner (Table) and the check that ended contexts come back
// unchanged (EndedContexts). Package core's white-box tests keep theirs in
// package core.
//
// # Concurrency
//
// Everything here is stateless and safe for concurrent use.
package coretest

import (
	"context"

	"github.com/foliovec/folio/core"
)

// Lengths embeds a text as its length in bytes and 1: texts of like length
// are near. MaxTokens is 100.
type Lengths struct{}

// MaxTokens is 100.
func (Lengths) MaxTokens() int { return 100 }

// CreateEmbeddings embeds each input as {len(input), 1}.
func (Lengths) CreateEmbeddings(_ context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	out := make([][]float32, len(inputs))
	for i, in := range inputs {
		out[i] = []float32{float32(len(in)), 1}
	}
	return core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: out}, nil
}
