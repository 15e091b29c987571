package tokenizertest_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/foliovec/folio/conformance/tokenizertest"
	"github.com/foliovec/folio/core"
)

// byteTokenizer makes one token per byte: lossless. Its fields break it in
// the ways the suite must catch.
type byteTokenizer struct {
	lower            bool          // lower-cases ASCII letters (lossy)
	cls              bool          // adds a [CLS] token 1000 that Decode drops
	drift            *atomic.Int64 // each Encode appends a different marker id
	emptyToken       bool          // Encode("") gives a token
	decodeNilText    bool          // Decode(nil) is "?"
	panicOnSpecial   bool          // Encode panics on "<|endoftext|>"
	panicOnPartial   bool          // Decode panics on invalid UTF-8
	negative         bool          // ids are negated
	dropEmoji        bool          // drops 4-byte characters
	dropDigits       bool          // drops ASCII digits
	noTokensForSpace bool          // whitespace-only text gives no tokens
}

func (b *byteTokenizer) Encode(text string) []int {
	if b.panicOnSpecial && strings.Contains(text, "<|endoftext|>") {
		panic("disallowed special token")
	}
	var out []int
	if b.cls {
		out = append(out, 1000)
	}
	if text == "" && b.emptyToken {
		out = append(out, 0)
	}
	if b.noTokensForSpace && strings.TrimSpace(text) == "" {
		return nil
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case b.dropEmoji && c >= 0xf0:
			i += 3
			continue
		case b.dropDigits && '0' <= c && c <= '9':
			continue
		case b.lower && 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		id := int(c)
		if b.negative {
			id = -id - 1
		}
		out = append(out, id)
	}
	if b.drift != nil {
		out = append(out, 2000+int(b.drift.Add(1)%2))
	}
	return out
}

func (b *byteTokenizer) Decode(tokens []int) string {
	if tokens == nil && b.decodeNilText {
		return "?"
	}
	var sb strings.Builder
	for _, id := range tokens {
		if id < 0 {
			id = -id - 1
		}
		if id < 256 {
			sb.WriteByte(byte(id))
		}
	}
	if b.panicOnPartial && !utf8.ValidString(sb.String()) {
		panic("invalid utf-8")
	}
	return sb.String()
}

func newFactory(proto byteTokenizer) func(testing.TB) core.Tokenizer {
	return func(testing.TB) core.Tokenizer {
		b := proto
		return &b
	}
}

func TestRunPassesALosslessTokenizer(t *testing.T) {
	tokenizertest.Run(t, newFactory(byteTokenizer{}), tokenizertest.Capabilities{Lossless: true})
}

func TestCheckPassesCorrectTokenizers(t *testing.T) {
	tests := []struct {
		name string
		tok  byteTokenizer
		caps tokenizertest.Capabilities
	}{
		{"a lossless tokenizer claiming Lossless", byteTokenizer{}, tokenizertest.Capabilities{Lossless: true}},
		{"a lossless tokenizer claiming nothing", byteTokenizer{}, tokenizertest.Capabilities{}},
		{"a lower-casing tokenizer with a [CLS] token, not lossless", byteTokenizer{lower: true, cls: true}, tokenizertest.Capabilities{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tokenizertest.Check(t.Context(), newFactory(tc.tok), tc.caps); err != nil {
				t.Fatalf("Check: %v", err)
			}
		})
	}
}

func TestCheckCatchesBrokenTokenizers(t *testing.T) {
	lossless := tokenizertest.Capabilities{Lossless: true}
	tests := []struct {
		name     string
		tok      byteTokenizer
		caps     tokenizertest.Capabilities
		wantRule string
	}{
		{"a lossy tokenizer claiming Lossless", byteTokenizer{lower: true}, lossless, "a lossless tokenizer round-trips every valid UTF-8 text"},
		{"a tokenizer that drops emoji is not lossless", byteTokenizer{dropEmoji: true}, lossless, `Decode(Encode("emoji 👋🌍🎉")) = "emoji "`},
		{"a tokenizer that drops digits loses ASCII text", byteTokenizer{dropDigits: true}, tokenizertest.Capabilities{}, "decoding keeps ASCII text up to case and whitespace"},
		{"a drifting tokenizer is not deterministic", byteTokenizer{drift: new(atomic.Int64)}, tokenizertest.Capabilities{}, "Encode and Decode are deterministic"},
		{"Encode(\"\") has no tokens when lossless", byteTokenizer{emptyToken: true}, lossless, `Encode("") = [0], want no tokens`},
		{"Decode(nil) is empty", byteTokenizer{decodeNilText: true}, tokenizertest.Capabilities{}, `Decode(nil) = "?"`},
		{"special-token text must not panic", byteTokenizer{panicOnSpecial: true}, tokenizertest.Capabilities{}, "panicked: disallowed special token"},
		{"decoding a prefix must not panic", byteTokenizer{panicOnPartial: true}, tokenizertest.Capabilities{}, "special-token text, invalid UTF-8 and token prefixes never panic"},
		{"ids are non-negative", byteTokenizer{negative: true}, tokenizertest.Capabilities{}, "negative id"},
		{"non-empty text gives tokens", byteTokenizer{noTokensForSpace: true}, tokenizertest.Capabilities{}, `Encode(" ") gave no tokens`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tokenizertest.Check(t.Context(), newFactory(tc.tok), tc.caps)
			if err == nil {
				t.Fatal("Check passed a broken tokenizer")
			}
			if !strings.Contains(err.Error(), tc.wantRule) {
				t.Fatalf("Check did not report %q; it reported:\n%v", tc.wantRule, err)
			}
		})
	}
}
