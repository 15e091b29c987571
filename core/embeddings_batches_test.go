package core

import (
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
