package tokenizertiktoken

import (
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"

	"github.com/foliovec/folio/core"
)

// DefaultTokenizer is the o200k_base tokenizer. Its ranks load on first use.
type DefaultTokenizer struct {
	encoding func() (*tiktoken.Tiktoken, error)
}

var _ core.Tokenizer = (*DefaultTokenizer)(nil)

// New returns an o200k_base tokenizer. It is cheap: the embedded ranks are
// parsed on the first Encode or Decode, once.
func New() *DefaultTokenizer {
	return &DefaultTokenizer{encoding: sync.OnceValues(loadO200k)}
}

func (t *DefaultTokenizer) load() *tiktoken.Tiktoken {
	enc, err := t.encoding()
	if err != nil {
		panic(err) // the ranks are embedded: only a broken build gets here
	}
	return enc
}

// Encode returns text's o200k_base token ids. Special-token strings such as
// "<|endoftext|>" are ordinary text. Invalid UTF-8 is encoded as if each bad
// byte were U+FFFD.
func (t *DefaultTokenizer) Encode(text string) []int {
	if text == "" {
		return []int{}
	}
	return t.load().EncodeOrdinary(text)
}

// Decode returns the text of tokens, skipping ids outside the vocabulary. A
// token slice that splits a multi-byte character decodes to a string that is
// not valid UTF-8 at the cut, so decoding consecutive windows of an encoding
// and concatenating the results gives back the text.
func (t *DefaultTokenizer) Decode(tokens []int) string {
	if len(tokens) == 0 {
		return ""
	}
	return t.load().Decode(tokens)
}
