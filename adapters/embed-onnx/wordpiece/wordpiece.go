package wordpiece

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// normalizer is BERT's text normalizer (the fast tokenizer's BertNormalizer,
// the slow one's BasicTokenizer).
type normalizer struct {
	cleanText    bool // drop control characters, map whitespace to ' '
	chineseChars bool // put spaces around CJK ideographs
	lowercase    bool
	stripAccents bool // NFD, then drop nonspacing marks
}

func (n normalizer) normalize(text string) string {
	ascii := true
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	var b strings.Builder
	b.Grow(len(text) + len(text)/4)
	for _, r := range text {
		if n.cleanText {
			if r == 0 || r == utf8.RuneError || isControl(r) {
				continue
			}
			if isWhitespace(r) {
				r = ' '
			}
		}
		if n.chineseChars && isCJK(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	if n.lowercase {
		out = toLower(out)
	}
	if n.stripAccents && !ascii {
		out = stripAccents(out)
	}
	return out
}

// toLower lower-cases like JavaScript's toLowerCase, which Vectra's
// tokenizer uses: a capital sigma ending a word becomes the final sigma ς.
func toLower(s string) string {
	lower := strings.ToLower(s)
	if !strings.ContainsRune(s, 'Σ') {
		return lower
	}
	runes := []rune(lower)
	orig := []rune(s)
	if len(runes) != len(orig) {
		return lower
	}
	for i, r := range orig {
		if r != 'Σ' {
			continue
		}
		before := i > 0 && unicode.IsLetter(orig[i-1])
		after := i+1 < len(orig) && unicode.IsLetter(orig[i+1])
		if before && !after {
			runes[i] = 'ς'
		}
	}
	return string(runes)
}

// stripAccents decomposes text (NFD) and drops the nonspacing marks, so
// "café" becomes "cafe".
func stripAccents(text string) string {
	decomposed := norm.NFD.String(text)
	var b strings.Builder
	b.Grow(len(decomposed))
	for _, r := range decomposed {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// preTokenize splits normalized text into words: on whitespace, and every
// punctuation character stands alone.
func preTokenize(text string, yield func(word string)) {
	start := -1
	for i, r := range text {
		switch {
		case unicode.IsSpace(r):
			if start >= 0 {
				yield(text[start:i])
				start = -1
			}
		case isPunctuation(r):
			if start >= 0 {
				yield(text[start:i])
				start = -1
			}
			yield(text[i : i+utf8.RuneLen(r)])
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		yield(text[start:])
	}
}

// wordPiece splits a word greedily into the longest pieces in the
// vocabulary; a word that cannot be split, or is longer than maxChars
// characters, is the unknown token.
type wordPiece struct {
	starts        map[string]int // pieces that begin a word
	continuations map[string]int // "##x" pieces, keyed without the prefix
	unk           int
	maxChars      int
}

func (wp *wordPiece) appendIDs(ids []int, word string) []int {
	if utf8.RuneCountInString(word) > wp.maxChars {
		return append(ids, wp.unk)
	}
	mark := len(ids)
	pieces := wp.starts
	for start := 0; start < len(word); {
		end := len(word)
		found := -1
		for end > start {
			if id, ok := pieces[word[start:end]]; ok {
				found = id
				break
			}
			// Step back one character, not one byte.
			_, size := utf8.DecodeLastRuneInString(word[start:end])
			end -= size
		}
		if found < 0 {
			return append(ids[:mark], wp.unk)
		}
		ids = append(ids, found)
		start = end
		pieces = wp.continuations
	}
	return ids
}

func isWhitespace(r rune) bool { return unicode.IsSpace(r) }

func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// isPunctuation: every ASCII non-letter, non-digit, non-space symbol
// counts, as in BERT, plus Unicode punctuation.
func isPunctuation(r rune) bool {
	if (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126) {
		return true
	}
	return unicode.IsPunct(r)
}

// isCJK reports whether r is a CJK Unified Ideograph that BERT's tokenizer
// splits out (Hangul, Hiragana and Katakana are not among them). Like
// transformers.js, which tests UTF-16 code units, only the blocks of the
// Basic Multilingual Plane count: ideographs of the supplementary planes
// stay inside their word.
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0xF900 && r <= 0xFAFF)
}
