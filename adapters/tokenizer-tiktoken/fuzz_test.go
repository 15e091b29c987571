package tokenizertiktoken_test

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Decode(Encode(s)) == s for every valid UTF-8 s, and decoding consecutive
// windows of an encoding gives s back, whatever the window size.
func FuzzEncodeDecode(f *testing.F) {
	for _, s := range []string{"", "hello world", "<|endoftext|>", "日本語のテキスト 👋🌍", "\ufeff# x", "a\u0085b", "  \n\t "} {
		f.Add(s, 3)
	}
	tok := shared()
	f.Fuzz(func(t *testing.T, text string, window int) {
		if !utf8.ValidString(text) {
			return
		}
		ids := tok.Encode(text)
		if got := tok.Decode(ids); got != text {
			t.Fatalf("Decode(Encode(%q)) = %q", text, got)
		}
		window = 1 + (window&0xff)%16
		var b strings.Builder
		for i := 0; i < len(ids); i += window {
			b.WriteString(tok.Decode(ids[i:min(i+window, len(ids))]))
		}
		if b.String() != text {
			t.Fatalf("windows of %d tokens decode to %q, want %q", window, b.String(), text)
		}
	})
}
