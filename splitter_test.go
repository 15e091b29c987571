package folio_test

import (
	"strings"
	"testing"

	"github.com/foliovec/folio"
	"github.com/foliovec/folio/core"
)

// The root package's splitter needs no tokenizer and no chunk size: o200k_base
// and Vectra's 400 tokens.
func TestNewTextSplitterDefaults(t *testing.T) {
	s, err := folio.NewTextSplitter(core.TextSplitterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	chunks := s.Split(strings.Repeat("Folio splits text into chunks of tokens. ", 200))
	if len(chunks) < 2 {
		t.Fatalf("%d chunks", len(chunks))
	}
	for i, c := range chunks {
		if len(c.Tokens) > 400 {
			t.Errorf("chunk %d has %d tokens, more than 400", i, len(c.Tokens))
		}
	}
}
