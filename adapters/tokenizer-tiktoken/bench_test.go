package tokenizertiktoken_test

import (
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"strings"
	"testing"
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
