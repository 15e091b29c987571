package wordpiece

import (
	"strings"

	"github.com/foliovec/folio/core"
)

var _ core.Tokenizer = (*Tokenizer)(nil)

// Tokenizer is a BERT WordPiece tokenizer read from a model
// folder (tokenizer.json and/or vocab.txt), giving the ids the model was
// trained with. It is immutable and safe for concurrent use.
//
// Encode adds [CLS] and [SEP] and never truncates, so token counts stay
// true for text of any length (the splitter relies on that);
// EncodeTruncated gives the ids the model sees. Decode skips special
// tokens. Special-token strings inside text, such as "[SEP]", are ordinary
// text.
type Tokenizer struct {
	norm          normalizer
	wp            wordPiece
	tokens        []string     // id → token
	special       map[int]bool // ids Decode skips
	cls, sep, pad int
	maxLength     int
	cleanUp       *strings.Replacer // nil unless clean_up_tokenization_spaces
}

// Pad is the id of the padding token.
func (t *Tokenizer) Pad() int { return t.pad }

// Encode returns the ids of text with [CLS] first and [SEP] last.
func (t *Tokenizer) Encode(text string) []int {
	ids := make([]int, 0, len(text)/4+2)
	ids = append(ids, t.cls)
	preTokenize(t.norm.normalize(text), func(word string) {
		ids = t.wp.appendIDs(ids, word)
	})
	return append(ids, t.sep)
}

// EncodeTruncated returns Encode(text) cut to the model's maximum length,
// keeping [SEP] last: the ids the model is given.
func (t *Tokenizer) EncodeTruncated(text string) []int {
	return t.truncate(t.Encode(text))
}

func (t *Tokenizer) truncate(ids []int) []int {
	if len(ids) <= t.maxLength {
		return ids
	}
	ids = ids[:t.maxLength]
	ids[t.maxLength-1] = t.sep
	return ids
}

// MaxLength is the most tokens the model takes, [CLS] and [SEP] included.
func (t *Tokenizer) MaxLength() int { return t.maxLength }

// VocabSize is the number of ids the tokenizer knows.
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// Decode turns ids back into text, skipping special tokens and ids the
// vocabulary does not have, and joining "##" pieces to the piece before.
func (t *Tokenizer) Decode(tokens []int) string {
	var b strings.Builder
	first := true
	for _, id := range tokens {
		if id < 0 || id >= len(t.tokens) || t.special[id] || t.tokens[id] == "" {
			continue
		}
		tok := t.tokens[id]
		if !first {
			if rest, ok := strings.CutPrefix(tok, "##"); ok {
				tok = rest
			} else {
				tok = " " + tok
			}
		}
		first = false
		if t.cleanUp != nil {
			tok = t.cleanUp.Replace(tok)
		}
		b.WriteString(tok)
	}
	if t.cleanUp == nil {
		return b.String()
	}
	return t.cleanUp.Replace(b.String())
}

// newCleanUp removes the spaces WordPiece decoding leaves before
// punctuation and English contractions (clean_up_tokenization_spaces).
func newCleanUp() *strings.Replacer {
	return strings.NewReplacer(
		" .", ".", " ?", "?", " !", "!", " ,", ",", " ' ", "'",
		" n't", "n't", " 'm", "'m", " 's", "'s", " 've", "'ve", " 're", "'re",
	)
}
