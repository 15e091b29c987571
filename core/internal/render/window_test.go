package render

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// wordTok is a tokenizer whose tokens depend on their context, as BPE's
// do: a token is a space and the letters after it, a run of letters cut
// every 5 letters from the run's start (as long runs are), a run of spaces
// or line breaks, or one other character, numbered by a table it grows.
type wordTok struct {
	ids   map[string]int
	words []string
}

func (w *wordTok) Encode(text string) []int {
	var out []int
	emit := func(s string) {
		id, ok := w.ids[s]
		if !ok {
			id = len(w.words)
			w.ids[s] = id
			w.words = append(w.words, s)
		}
		out = append(out, id)
	}
	rs := []rune(text)
	for i := 0; i < len(rs); {
		j := i + 1
		switch {
		case unicode.IsLetter(rs[i]) || rs[i] == ' ' && i+1 < len(rs) && unicode.IsLetter(rs[i+1]):
			for j < len(rs) && unicode.IsLetter(rs[j]) && j-i < 5 {
				j++
			}
		case rs[i] == ' ' || rs[i] == '\n':
			for j < len(rs) && (rs[j] == ' ' || rs[j] == '\n') {
				j++
			}
		}
		emit(string(rs[i:j]))
		i = j
	}
	return out
}

func (w *wordTok) Decode(tokens []int) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteString(w.words[t])
	}
	return b.String()
}

// The windows around a section give the tokens that tokenizing the whole
// prefix and suffix gives, at every cut, budget and word length.
func TestTokenWindowsMatchWholeText(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tok := &wordTok{ids: map[string]int{}}
	for range 300 {
		var b strings.Builder
		for range rng.IntN(3000) {
			switch rng.IntN(5) {
			case 0:
				b.WriteString(strings.Repeat(" ", 1+rng.IntN(3)))
			case 1:
				b.WriteString(".")
			case 2:
				b.WriteString("\n")
			default:
				b.WriteString(strings.Repeat("ab", 1+rng.IntN(rng.IntN(200)+1)))
			}
		}
		text := NewText(b.String())
		r := New(text, tok)
		n := text.Len16()
		cut := rng.IntN(n + 1)
		want := rng.IntN(400)
		full := tok.Encode(text.Substring(0, cut))
		got := r.tokensBefore(cut, want)
		k := min(want, len(full))
		if len(got) < k || !slices.Equal(got[len(got)-k:], full[len(full)-k:]) {
			t.Fatalf("before %d, want %d: window tokens differ from the whole prefix's", cut, want)
		}
		full = tok.Encode(text.Substring(cut, n))
		got = r.tokensAfter(cut, want)
		k = min(want, len(full))
		if len(got) < k || !slices.Equal(got[:k], full[:k]) {
			t.Fatalf("after %d, want %d: window tokens differ from the whole suffix's", cut, want)
		}
	}
}
