package tokenizertiktoken

import (
	"context"
	"fmt"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"

	"github.com/foliovec/folio/core"
)

// DefaultTokenizer is the o200k_base tokenizer. Its ranks load on first use.
type DefaultTokenizer struct {
	encoding func() (*tiktoken.Tiktoken, error)
}

var _ core.ContextTokenizer = (*DefaultTokenizer)(nil)

// New returns an o200k_base tokenizer. It is cheap: the embedded ranks are
// parsed on the first Encode or Decode, once.
func New() *DefaultTokenizer {
	return &DefaultTokenizer{encoding: sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
		return buildO200k(o200kRanksGz, false)
	})}
}

// NewFromRankFile returns an o200k_base tokenizer whose ranks come from
// load instead of the binary: OpenAI's o200k_base.tiktoken, gzipped or
// not, the file New embeds. A program that never calls New leaves the
// embedded ranks (1.7 MB) out of its binary; Folio's browser package
// serves the file beside its .wasm this way.
//
// load is called once, on the first Encode, EncodeContext or Decode. A
// load error, or a file whose SHA-256 is not o200k_base's (ErrRankFile),
// is returned by EncodeContext; Encode and Decode, which have no error to
// return, panic with it.
func NewFromRankFile(load func() ([]byte, error)) *DefaultTokenizer {
	return &DefaultTokenizer{encoding: sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
		raw, err := load()
		if err != nil {
			return nil, fmt.Errorf("tokenizertiktoken: load %s: %w", o200kRanksFile, err)
		}
		return buildO200k(raw, true)
	})}
}

func (t *DefaultTokenizer) load() *tiktoken.Tiktoken {
	enc, err := t.encoding()
	if err != nil {
		panic(err) // New's ranks are embedded: only a broken build, or NewFromRankFile's load, gets here
	}
	return enc
}

// Encode returns text's o200k_base token ids. Special-token strings such as
// "<|endoftext|>" are ordinary text. Invalid UTF-8 is encoded as if each bad
// byte were U+FFFD.
//
// A run of letters, digits, white space or punctuation longer than
// MaxRunBytes is encoded in pieces of at most that length, so encoding
// takes time linear in the text's length (see MaxRunBytes).
func (t *DefaultTokenizer) Encode(text string) []int {
	ids, _ := t.encode(context.Background(), text, false)
	return ids
}

// EncodeContext is Encode that stops when ctx ends, returning its error:
// it looks at ctx between blocks of about 64 KiB, cut where the encoding
// does not change, so a long text is never encoded past a deadline by more
// than one block's work. It implements core.ContextTokenizer.
func (t *DefaultTokenizer) EncodeContext(ctx context.Context, text string) ([]int, error) {
	return t.encode(ctx, text, true)
}

func (t *DefaultTokenizer) encode(ctx context.Context, text string, blocks bool) ([]int, error) {
	if text == "" {
		return []int{}, nil
	}
	var enc *tiktoken.Tiktoken
	if blocks {
		var err error
		if enc, err = t.encoding(); err != nil {
			return nil, err
		}
	} else {
		enc = t.load()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var ids []int
	var err error
	eachPiece(text, blocks, func(piece string) bool {
		if ids == nil && len(piece) == len(text) {
			ids = enc.EncodeOrdinary(text)
			return true
		}
		ids = append(ids, enc.EncodeOrdinary(piece)...)
		err = ctx.Err()
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
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
