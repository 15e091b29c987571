package core_test

import (
	"fmt"

	"github.com/foliovec/folio/core"
)

// splitterExampleTokenizer makes one token per character: enough for an example. Real
// code uses tokenizertiktoken.New() (o200k_base).
type splitterExampleTokenizer struct{}

func (splitterExampleTokenizer) Encode(text string) []int {
	ids := []int{}
	for _, r := range text {
		ids = append(ids, int(r))
	}
	return ids
}

func (splitterExampleTokenizer) Decode(ids []int) string {
	rs := make([]rune, len(ids))
	for i, id := range ids {
		rs[i] = rune(id)
	}
	return string(rs)
}

func ExampleNewTextSplitter() {
	cfg := core.DefaultDocumentChunkingConfig() // 512 tokens, separators kept
	cfg.ChunkSize = 40
	cfg.DocType = "md"
	cfg.Tokenizer = splitterExampleTokenizer{}
	splitter, err := core.NewTextSplitter(cfg)
	if err != nil {
		panic(err)
	}
	text := "# Notes\n\nVectors are lists of numbers.\n\n## Search\n\nCosine similarity ranks them."
	for _, c := range splitter.Split(text) {
		// Positions are inclusive UTF-16 offsets into text. Whitespace-only
		// pieces are dropped; pieces merge up to 40 tokens, and a piece of
		// under 10 (a quarter of the size), such as "## ", joins a
		// neighbour it fits with.
		fmt.Printf("%d-%d %q\n", c.StartPos, c.EndPos, c.Text)
	}
	// Output:
	// 0-38 "# Notes\nVectors are lists of numbers.\n"
	// 40-79 "## Search\nCosine similarity ranks them."

}
