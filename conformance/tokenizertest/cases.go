package tokenizertest

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/foliovec/folio/core"
)

// sample is a text the suite tokenizes. special marks text that looks like a
// special token of some tokenizer family.
type sample struct {
	name    string
	text    string
	special bool
}

var samples = []sample{
	{"single letter", "a", false},
	{"ascii words", "hello world", false},
	{"ascii sentence with punctuation", "Hello, World! How are you?", false},
	{"leading and trailing spaces", "  leading and trailing  ", false},
	{"whitespace runs", "multiple    spaces   \n\n\n  and\t\ttabs", false},
	{"newlines", "line one\nline two\r\nline three\n", false},
	{"only a space", " ", false},
	{"only a newline", "\n", false},
	{"digits and numbers", "numbers 1234567890 3.14159 -42 1e10", false},
	{"ascii punctuation", "punctuation !@#$%^&*()_+-=[]{}|;':\",./<>?`~", false},
	{"code", "func main() {\n\tfmt.Println(\"hi\")\n}\n", false},
	{"long ascii text", strings.Repeat("The quick brown fox jumps over the lazy dog. ", 40), false},
	{"latin accents", "café naïve résumé Straße", false},
	{"cyrillic", "Привет, мир", false},
	{"japanese", "こんにちは世界", false},
	{"chinese", "中文字符测试，标点。", false},
	{"korean", "한국어 텍스트", false},
	{"right to left", "שלום עולם مرحبا", false},
	{"emoji", "emoji 👋🌍🎉", false},
	{"emoji zwj sequence", "family 👨‍👩‍👧‍👦 here", false},
	{"flags", "flags 🇯🇵🇺🇸", false},
	{"combining marks", "e\u0301 a\u0308 n\u0303 Z\u0324\u0354\u0367\u0311\u0313", false},
	{"unusual spaces", "non\u00a0breaking\u2009thin\u200bzero\u3000wide", false},
	{"byte order mark", "\ufeffBOM", false},
	{"endoftext", "<|endoftext|>", true},
	{"endoftext inside text", "before <|endoftext|> after", true},
	{"chat markers", "<|im_start|>user\nhi<|im_end|>", true},
	{"bert markers", "[CLS] text [SEP] [MASK] [PAD] [UNK]", true},
	{"sentencepiece markers", "<s>text</s><unk><pad>", true},
}

// invalidUTF8 are texts that are not valid UTF-8.
var invalidUTF8 = []string{"\xff\xfe", "a\x80b", "\xe4\xb8", "ok \xc3\x28 then"}

func cases() []testCase {
	return []testCase{
		{Name: "Encode and Decode are deterministic", Run: caseDeterministic},
		{Name: "non-empty text gives non-negative token ids", Run: caseNonEmpty},
		{Name: "empty text and empty tokens", Run: caseEmpty},
		{Name: "a lossless tokenizer round-trips every valid UTF-8 text", Run: caseLossless},
		{Name: "decoding keeps ASCII text up to case and whitespace", Run: caseASCIIKept},
		{Name: "special-token text, invalid UTF-8 and token prefixes never panic", Run: caseNoPanic},
		{Name: "concurrent use is safe and gives sequential results", Run: caseConcurrent},
	}
}

// encode calls Encode and reports a panic as a violation.
func encode(t testing.TB, tok core.Tokenizer, text string) (tokens []int, ok bool) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("Encode(%q) panicked: %v", text, r)
			ok = false
		}
	}()
	return tok.Encode(text), true
}

// decode calls Decode and reports a panic as a violation.
func decode(t testing.TB, tok core.Tokenizer, tokens []int) (text string, ok bool) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("Decode(%v) panicked: %v", tokens, r)
			ok = false
		}
	}()
	return tok.Decode(tokens), true
}

func caseDeterministic(t testing.TB, newTokenizer func(testing.TB) core.Tokenizer, _ Capabilities) {
	tok, other := newTokenizer(t), newTokenizer(t)
	for _, s := range samples {
		first, ok1 := encode(t, tok, s.text)
		again, ok2 := encode(t, tok, s.text)
		fresh, ok3 := encode(t, other, s.text)
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		if !slices.Equal(first, again) {
			t.Errorf("%s: Encode(%q) gave %v, then %v", s.name, s.text, first, again)
		}
		if !slices.Equal(first, fresh) {
			t.Errorf("%s: Encode(%q) gave %v, a second tokenizer %v", s.name, s.text, first, fresh)
		}
		d1, ok1 := decode(t, tok, first)
		d2, ok2 := decode(t, other, first)
		if ok1 && ok2 && d1 != d2 {
			t.Errorf("%s: Decode(%v) gave %q, a second tokenizer %q", s.name, first, d1, d2)
		}
	}
}

func caseNonEmpty(t testing.TB, newTokenizer func(testing.TB) core.Tokenizer, _ Capabilities) {
	tok := newTokenizer(t)
	for _, s := range samples {
		tokens, ok := encode(t, tok, s.text)
		if !ok {
			continue
		}
		if len(tokens) == 0 {
			t.Errorf("%s: Encode(%q) gave no tokens", s.name, s.text)
		}
		for _, id := range tokens {
			if id < 0 {
				t.Errorf("%s: Encode(%q) gave negative id %d", s.name, s.text, id)
				break
			}
		}
	}
}

func caseEmpty(t testing.TB, newTokenizer func(testing.TB) core.Tokenizer, caps Capabilities) {
	tok := newTokenizer(t)
	if got, ok := decode(t, tok, nil); ok && got != "" {
		t.Errorf("Decode(nil) = %q, want \"\"", got)
	}
	if got, ok := decode(t, tok, []int{}); ok && got != "" {
		t.Errorf("Decode([]int{}) = %q, want \"\"", got)
	}
	tokens, ok := encode(t, tok, "")
	if !ok {
		return
	}
	if caps.Lossless && len(tokens) != 0 {
		t.Errorf("Encode(\"\") = %v, want no tokens", tokens)
	}
	if got, ok := decode(t, tok, tokens); ok && got != "" {
		t.Errorf("Decode(Encode(\"\")) = %q, want \"\"", got)
	}
}

func caseLossless(t testing.TB, newTokenizer func(testing.TB) core.Tokenizer, caps Capabilities) {
	if !caps.Lossless {
		t.Skip("exact round trips are checked only for tokenizers that claim Lossless")
	}
	tok := newTokenizer(t)
	for _, s := range samples {
		tokens, ok := encode(t, tok, s.text)
		if !ok {
			continue
		}
		if got, ok := decode(t, tok, tokens); ok && got != s.text {
			t.Errorf("%s: Decode(Encode(%q)) = %q", s.name, s.text, got)
		}
	}
}

// foldASCII lower-cases ASCII letters and removes whitespace.
func foldASCII(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return -1
		case 'A' <= r && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func caseASCIIKept(t testing.TB, newTokenizer func(testing.TB) core.Tokenizer, _ Capabilities) {
	tok := newTokenizer(t)
	for _, s := range samples {
		// Special-token text may be a control token of a lossy tokenizer
		// (BERT's [CLS]), which decoding drops.
		if s.special || !isASCII(s.text) {
			continue
		}
		tokens, ok := encode(t, tok, s.text)
		if !ok {
			continue
		}
		got, ok := decode(t, tok, tokens)
		if ok && foldASCII(got) != foldASCII(s.text) {
			t.Errorf("%s: Decode(Encode(%q)) = %q, which differs by more than case and whitespace", s.name, s.text, got)
		}
	}
}

func caseNoPanic(t testing.TB, newTokenizer func(testing.TB) core.Tokenizer, _ Capabilities) {
	tok := newTokenizer(t)
	for _, s := range samples {
		tokens, ok := encode(t, tok, s.text)
		if !ok || !s.special && isASCII(s.text) {
			continue
		}
		// Every prefix of an encoding decodes, even one that splits a
		// character (as a splitter's token windows do).
		for n := range len(tokens) + 1 {
			if _, ok := decode(t, tok, tokens[:n]); !ok {
				break
			}
		}
	}
	for _, text := range invalidUTF8 {
		if tokens, ok := encode(t, tok, text); ok {
			decode(t, tok, tokens)
		}
	}
}

func caseConcurrent(t testing.TB, newTokenizer func(testing.TB) core.Tokenizer, _ Capabilities) {
	tok := newTokenizer(t)
	// The first use happens concurrently too: tokenizers that load lazily
	// must load safely.
	const goroutines = 8
	results := make([][][]int, goroutines)
	decoded := make([][]string, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			results[g] = make([][]int, len(samples))
			decoded[g] = make([]string, len(samples))
			for k := range samples {
				i := (k + g) % len(samples) // each goroutine starts elsewhere
				tokens, ok := encode(t, tok, samples[i].text)
				if !ok {
					continue
				}
				results[g][i] = tokens
				decoded[g][i], _ = decode(t, tok, tokens)
			}
		})
	}
	wg.Wait()
	for i, s := range samples {
		want, ok := encode(t, tok, s.text)
		if !ok {
			continue
		}
		wantText, _ := decode(t, tok, want)
		for g := range goroutines {
			if !slices.Equal(results[g][i], want) {
				t.Errorf("%s: goroutine %d encoded %v, sequential use %v", s.name, g, results[g][i], want)
			}
			if decoded[g][i] != wantText {
				t.Errorf("%s: goroutine %d decoded %q, sequential use %q", s.name, g, decoded[g][i], wantText)
			}
		}
	}
}
