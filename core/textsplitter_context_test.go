package core

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/foliovec/folio/core/internal/testtok"
)

// cancellingTokenizer cancels its context on its nth Encode.
type cancellingTokenizer struct {
	testtok.Char
	n      atomic.Int32
	after  int32
	cancel context.CancelFunc
}

func (c *cancellingTokenizer) Encode(text string) []int {
	if c.n.Add(1) == c.after {
		c.cancel()
	}
	return c.Char.Encode(text)
}

// SplitContext splits as Split does, and stops with the context's error
// once it ends, whether or not the tokenizer takes a context.
func TestSplitContext(t *testing.T) {
	text := strings.Repeat("one two three four five six seven.\n\n", 200)
	s, err := NewTextSplitter(TextSplitterConfig{ChunkSize: 20, ChunkOverlap: 2, KeepSeparators: true, Tokenizer: testtok.Char{}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.SplitContext(t.Context(), text)
	if err != nil {
		t.Fatal(err)
	}
	if want := s.Split(text); !slices.EqualFunc(got, want, func(a, b TextChunk) bool {
		return a.Text == b.Text && a.StartPos == b.StartPos && a.EndPos == b.EndPos && slices.Equal(a.EndOverlap, b.EndOverlap)
	}) {
		t.Fatal("SplitContext and Split disagree")
	}

	ctx, cancel := context.WithCancel(t.Context())
	tok := &cancellingTokenizer{after: 5, cancel: cancel}
	s, err = NewTextSplitter(TextSplitterConfig{ChunkSize: 20, Tokenizer: tok})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SplitContext(ctx, text); !errors.Is(err, context.Canceled) {
		t.Fatalf("SplitContext after a cancel: %v, want context.Canceled", err)
	}
	if n := tok.n.Load(); n > 6 {
		t.Errorf("the splitter encoded %d times, want it to stop right after the 5th", n)
	}
}
