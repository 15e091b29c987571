package core

import (
	"strings"
	"unicode"
	"unicode/utf16"
)

// tsHeavyTokenizer is the spec's tokenizer of two tokens per character; Decode
// keeps every other token.
type tsHeavyTokenizer struct{}

func (tsHeavyTokenizer) Encode(text string) []int {
	var out []int
	for _, r := range text {
		out = append(out, int(r), int(r)+1)
	}
	return out
}

func (tsHeavyTokenizer) Decode(tokens []int) string {
	var rs []rune
	for i := 0; i < len(tokens); i += 2 {
		rs = append(rs, rune(tokens[i]))
	}
	return string(rs)
}

// tsByteTokenizer makes one token per UTF-8 byte, like a byte-level BPE with
// no merges: its windows cut characters in two.
type tsByteTokenizer struct{}

func (tsByteTokenizer) Encode(text string) []int {
	out := make([]int, len(text))
	for i := 0; i < len(text); i++ {
		out[i] = int(text[i])
	}
	return out
}

func (tsByteTokenizer) Decode(tokens []int) string {
	b := make([]byte, len(tokens))
	for i, t := range tokens {
		b[i] = byte(t)
	}
	return string(b)
}

// tsSlice16 is source[start:end+1] in UTF-16 code units, as JavaScript's
// substring(start, end+1).
func tsSlice16(source string, start, end int) string {
	u := utf16.Encode([]rune(source))
	if start < 0 || end >= len(u) || start > end+1 {
		return "<out of range>"
	}
	return string(utf16.Decode(u[start : end+1]))
}

// tsLettersAndDigits keeps only the letters and digits of s.
func tsLettersAndDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return r
		}
		return -1
	}, s)
}

func tsChunkTexts(chunks []TextChunk) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = c.Text
	}
	return out
}

func tsMustSplitter(t interface {
	Helper()
	Fatal(...any)
}, cfg TextSplitterConfig) *TextSplitter {
	t.Helper()
	s, err := NewTextSplitter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
