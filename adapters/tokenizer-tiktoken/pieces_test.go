package tokenizertiktoken_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
)

// Text without a run longer than MaxRunBytes encodes exactly as one
// piece; EncodeContext gives what Encode gives, also across its 64 KiB
// blocks; every encoding decodes back to its text.
func TestPiecesKeepTheEncoding(t *testing.T) {
	tok := shared()
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"vector", "Index", " ", "\n", "\n\n", "  \n", "\t", "42", "1234567", "é", "日本語", "--", "{", "}\n", "x := y", "'s", "\r\n"}
	var b strings.Builder
	for b.Len() < 300_000 {
		b.WriteString(words[rng.IntN(len(words))])
	}
	text := b.String()
	plain := tok.Encode(text)
	withCtx, err := tok.EncodeContext(t.Context(), text)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain, withCtx) {
		t.Fatal("EncodeContext differs from Encode on ordinary text")
	}
	if tok.Decode(plain) != text {
		t.Fatal("the encoding does not decode back to the text")
	}
	long := "start " + strings.Repeat("ab", 5000) + " " + strings.Repeat(" ", 3000) + "=" + strings.Repeat("-", 3000) + "9" + strings.Repeat("7", 1000) + " end"
	if got := tok.Decode(tok.Encode(long)); got != long {
		t.Fatal("long runs do not decode back to the text")
	}
	// A run at the limit is one piece: the same ids as tiktoken's.
	atLimit := strings.Repeat("a", tokenizertiktoken.MaxRunBytes)
	if n := len(tok.Encode(atLimit)); n != tokenizertiktoken.MaxRunBytes/8 {
		t.Errorf("%d letters: %d tokens, want %d", len(atLimit), n, tokenizertiktoken.MaxRunBytes/8)
	}
}

func TestEncodeContextStops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := shared().EncodeContext(ctx, strings.Repeat("a", 1<<20)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled EncodeContext: %v, want context.Canceled", err)
	}
}
