package tokenizertiktoken_test

import (
	"fmt"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"strings"
	"testing"

	"github.com/foliovec/folio/core"
)

// benchText is about 4 KB of mixed English prose, markdown and code.
var benchText = strings.Repeat("## Vector search\n\nVector search finds items whose embedding is close to a query embedding. "+
	"Cosine similarity is the usual score: `dot(a, b) / (norm(a) * norm(b))`. Résumé, naïve, 日本語.\n\n", 24)

func BenchmarkEncode(b *testing.B) {
	tok := shared()
	tok.Encode("warm up") // load the ranks outside the timing
	b.SetBytes(int64(len(benchText)))
	tokens := 0
	for b.Loop() {
		tokens += len(tok.Encode(benchText))
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

func BenchmarkDecode(b *testing.B) {
	tok := shared()
	ids := tok.Encode(benchText)
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		_ = tok.Decode(ids)
	}
	b.ReportMetric(float64(b.N*len(ids))/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkLoad is the one-time cost of a tokenizer's first use.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		tokenizertiktoken.New().Encode("a")
	}
}

// markdown1MB is about 1 MB of markdown: headings, prose, lists, code,
// tables and some non-ASCII text.
func markdown1MB() string {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "## Section %d\n\nVector search finds items whose embedding is close to a query embedding. "+
			"A vector database stores each item as a list of numbers together with metadata; naïve résumé 日本語のテキスト 👋.\n\n"+
			"### Details %d\n\n- Keep metadata small.\n- Index only the fields you filter on.\n- Store large payloads in side-car files.\n\n"+
			"```go\nfunc score(a, b []float32) float64 {\n\treturn dot(a, b) / (norm(a) * norm(b))\n}\n```\n\n"+
			"| key | value |\n|-----|-------|\n| id | %d |\n\n---\n\n", i, i, i)
	}
	return b.String()
}

// BenchmarkSplitMarkdown1MB splits 1 MB of markdown into a document index's
// default 512-token chunks with o200k_base.
func BenchmarkSplitMarkdown1MB(b *testing.B) {
	tok := shared()
	tok.Encode("warm up")
	text := markdown1MB()
	cfg := core.DefaultDocumentChunkingConfig()
	cfg.DocType, cfg.Tokenizer = "md", tok
	s, err := core.NewTextSplitter(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	chunks := 0
	for b.Loop() {
		chunks = len(s.Split(text))
	}
	b.ReportMetric(float64(chunks), "chunks")
}

// BenchmarkEncodeOneLongWord is the denial-of-service case: one run of a
// letter, 10 KB to 1 MB. Encoding long runs in bounded pieces keeps the
// time per byte flat (before, 100 KB took 11 s and 150 KB 40 s).
func BenchmarkEncodeOneLongWord(b *testing.B) {
	tok := shared()
	tok.Encode("warm up")
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		text := strings.Repeat("a", n)
		b.Run(fmt.Sprintf("%dKB", n/1000), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				tok.Encode(text)
			}
		})
	}
}
