package core

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/foliovec/folio/core/internal/testtok"
)

// TokenBatches: runs of at most the limit, a text over it alone, one run
// without a limit or a tokenizer.
func TestTokenBatches(t *testing.T) {
	texts := []string{"abc", "de", "fghij", "k", "lmnopqrstu", "vw"}
	tests := []struct {
		limit int
		tok   Tokenizer
		want  [][2]int
	}{
		{5, testtok.Char{}, [][2]int{{0, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}}},
		{6, testtok.Char{}, [][2]int{{0, 2}, {2, 4}, {4, 5}, {5, 6}}},
		{100, testtok.Char{}, [][2]int{{0, 6}}},
		{0, testtok.Char{}, [][2]int{{0, 6}}},
		{5, nil, [][2]int{{0, 6}}},
	}
	for _, tc := range tests {
		if got := TokenBatches(texts, tc.tok, tc.limit); !slices.Equal(got, tc.want) {
			t.Errorf("limit %d: %v, want %v", tc.limit, got, tc.want)
		}
	}
	if got := TokenBatches(nil, testtok.Char{}, 5); got != nil {
		t.Errorf("no texts: %v", got)
	}
}

// EmbeddingsOutput reads every shape of a call's outcome the same way, for
// the document index, the server and the JavaScript module.
func TestEmbeddingsOutput(t *testing.T) {
	vecs := [][]float32{{1}, {2}}
	cause := errors.New("connection reset")
	own := &EmbeddingsError{Status: EmbeddingsRateLimited, Message: "slow down"}
	for _, tc := range []struct {
		name    string
		resp    EmbeddingsResponse
		err     error
		status  EmbeddingsStatus
		message string
		is      error
	}{
		{"success", EmbeddingsResponse{Status: EmbeddingsSuccess, Output: vecs}, nil, "", "", nil},
		{"a model's own error", EmbeddingsResponse{}, own, EmbeddingsRateLimited, "slow down", ErrRateLimited},
		{"a wrapped one", EmbeddingsResponse{}, fmt.Errorf("call: %w", own), EmbeddingsRateLimited, "slow down", ErrRateLimited},
		{"another error", EmbeddingsResponse{Status: EmbeddingsSuccess}, cause, EmbeddingsFailed, "connection reset", cause},
		{"a failed response", EmbeddingsResponse{Status: EmbeddingsCancelled, Message: "stop"}, nil, EmbeddingsCancelled, "stop", ErrEmbeddingsCancelled},
		{"no status", EmbeddingsResponse{Output: vecs}, nil, EmbeddingsFailed, "", ErrEmbeddingsFailed},
		{"too few vectors", EmbeddingsResponse{Status: EmbeddingsSuccess, Output: vecs[:1]}, nil, EmbeddingsFailed, "1 vectors for 2 inputs", ErrEmbeddingsFailed},
	} {
		got, err := EmbeddingsOutput(tc.resp, tc.err, 2)
		var ee *EmbeddingsError
		switch {
		case tc.status == "":
			if err != nil || len(got) != 2 {
				t.Errorf("%s: %v, %v", tc.name, got, err)
			}
		case !errors.As(err, &ee) || ee.Status != tc.status || ee.Message != tc.message || !errors.Is(err, tc.is) || got != nil:
			t.Errorf("%s: %v, %#v; want status %q, message %q, matching %v", tc.name, got, err, tc.status, tc.message, tc.is)
		}
	}
}
