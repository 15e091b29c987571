// Package testtok holds the toy tokenizers core's tests count tokens with:
// simple enough to reason about, and the ones Vectra's own render tests and
// the golden files in core/testdata/render were made with.
//
// # Concurrency
//
// Both tokenizers are stateless and safe for concurrent use.
//
// # Errors
//
// Nothing here fails.
package testtok

// Char is one token per code point, Vectra's LocalDocumentResult.spec.ts
// tokenizer.
type Char struct{}

// Encode returns the code points of text.
func (Char) Encode(text string) []int {
	out := make([]int, 0, len(text))
	for _, r := range text {
		out = append(out, int(r))
	}
	return out
}

// Decode returns the text of the code points.
func (Char) Decode(tokens []int) string {
	rs := make([]rune, len(tokens))
	for i, t := range tokens {
		rs[i] = rune(t)
	}
	return string(rs)
}

// Pair is one token per two code points, so a text's tokens are not its
// parts' tokens put together (testdata/render/generate.js).
type Pair struct{}

const pairBase = 2097152

// Encode packs each two code points of text into one token.
func (Pair) Encode(text string) []int {
	rs := []rune(text)
	out := make([]int, 0, (len(rs)+1)/2)
	for i := 0; i < len(rs); i += 2 {
		if i+1 < len(rs) {
			out = append(out, int(rs[i])*pairBase+int(rs[i+1])+1)
		} else {
			out = append(out, int(rs[i])*pairBase)
		}
	}
	return out
}

// Decode unpacks the code points of the tokens.
func (Pair) Decode(tokens []int) string {
	var rs []rune
	for _, t := range tokens {
		rs = append(rs, rune(t/pairBase))
		if lo := t % pairBase; lo > 0 {
			rs = append(rs, rune(lo-1))
		}
	}
	return string(rs)
}
