package core

import (
	"fmt"
	"strings"
	"testing"

	"github.com/foliovec/folio/core/internal/testtok"
)

// markdownCorpus is about n bytes of markdown: headings, paragraphs, lists,
// code blocks, a table and some non-ASCII text.
func markdownCorpus(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "## Section %d\n\nVector search finds items whose embedding is close to a query embedding. "+
			"A vector database stores each item as a list of numbers together with metadata; naïve résumé 日本語のテキスト 👋.\n\n"+
			"### Details %d\n\n- Keep metadata small.\n- Index only the fields you filter on.\n- Store large payloads in side-car files.\n\n"+
			"```go\nfunc score(a, b []float32) float64 {\n\treturn dot(a, b) / (norm(a) * norm(b))\n}\n```\n\n"+
			"| key | value |\n|-----|-------|\n| id | %d |\n\n---\n\n", i, i, i)
	}
	return b.String()
}

// BenchmarkSplitMarkdown splits markdown with a one-token-per-character
// tokenizer, so it measures the splitter itself. (The adapter
// tokenizer-tiktoken measures it with o200k_base.)
func BenchmarkSplitMarkdown(b *testing.B) {
	for _, size := range []int{64 << 10, 1 << 20} {
		text := markdownCorpus(size)
		s := tsMustSplitter(b, TextSplitterConfig{ChunkSize: 512, KeepSeparators: true, DocType: "md", Tokenizer: testtok.Char{}})
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if len(s.Split(text)) == 0 {
					b.Fatal("no chunks")
				}
			}
		})
	}
}
