package tokenizertest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/foliovec/folio/conformance/tokenizertest"
	"github.com/foliovec/folio/core"
)

// runeTokenizer makes one token per rune: lossless.
type runeTokenizer struct{}

func (runeTokenizer) Encode(text string) []int {
	var out []int
	for _, r := range text {
		out = append(out, int(r))
	}
	return out
}

func (runeTokenizer) Decode(tokens []int) string {
	rs := make([]rune, len(tokens))
	for i, id := range tokens {
		rs[i] = rune(id)
	}
	return string(rs)
}

// Check runs the suite outside go test.
func ExampleCheck() {
	newTokenizer := func(testing.TB) core.Tokenizer { return runeTokenizer{} }
	err := tokenizertest.Check(context.Background(), newTokenizer, tokenizertest.Capabilities{Lossless: true})
	fmt.Println(err)
	// Output:
	// <nil>
}
