package tokenizertiktoken_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync/atomic"
	"testing"

	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/conformance/tokenizertest"
	"github.com/foliovec/folio/core"
)

// A tokenizer reading its ranks from a file encodes as the embedded one,
// loading the file once however many goroutines use it first.
func TestRankFileTokenizerMatchesTheEmbeddedOne(t *testing.T) {
	var loads atomic.Int32
	tok := tokenizertiktoken.NewFromRankFile(func() ([]byte, error) {
		loads.Add(1)
		return os.ReadFile("o200k_base.tiktoken.gz")
	})
	done := make(chan []int)
	for range 8 {
		go func() { done <- tok.Encode("hello world") }()
	}
	for range 8 {
		if got := <-done; !slices.Equal(got, []int{24912, 2375}) {
			t.Errorf("Encode = %v, want [24912 2375]", got)
		}
	}
	for _, g := range loadGolden(t) {
		if got := tok.Encode(g.Text); !slices.Equal(got, g.IDs) {
			t.Errorf("Encode(%q) = %v, want %v", g.Text, got, g.IDs)
		}
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("the rank file was loaded %d times, want once", n)
	}
	tokenizertest.Run(t, func(testing.TB) core.Tokenizer { return tok }, tokenizertest.Capabilities{Lossless: true})
}

// A rank file that cannot be read, or is not o200k_base's, fails
// EncodeContext with the cause and makes Encode and Decode panic.
func TestRankFileErrors(t *testing.T) {
	unreadable := errors.New("no such file")
	for name, c := range map[string]struct {
		load func() ([]byte, error)
		want error
	}{
		"unreadable": {func() ([]byte, error) { return nil, unreadable }, unreadable},
		"wrong file": {func() ([]byte, error) { return []byte("aGVsbG8= 0\n"), nil }, tokenizertiktoken.ErrRankFile},
	} {
		t.Run(name, func(t *testing.T) {
			tok := tokenizertiktoken.NewFromRankFile(c.load)
			if _, err := tok.EncodeContext(context.Background(), "hello"); !errors.Is(err, c.want) {
				t.Errorf("EncodeContext = %v, want %v", err, c.want)
			}
			for what, f := range map[string]func(){"Encode": func() { tok.Encode("hello") }, "Decode": func() { tok.Decode([]int{1}) }} {
				func() {
					defer func() {
						if r := recover(); r == nil {
							t.Errorf("%s did not panic", what)
						} else if err, ok := r.(error); !ok || !errors.Is(err, c.want) {
							t.Errorf("%s panicked with %v, want %v", what, r, c.want)
						}
					}()
					f()
				}()
			}
		})
	}
}
