package embedonnx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen"
)

// miniLMFolder writes a model of all-MiniLM-L6-v2's exact size (6 layers,
// 384 hidden, 12 heads, 1536 feed-forward, 30,522 tokens; deterministic
// random weights) with the real bert-base-uncased vocabulary.
func miniLMFolder(b testing.TB) string {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "bert-base-uncased", "vocab.txt"))
	if err != nil {
		b.Fatal(err)
	}
	vocab := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	dir := filepath.Join(b.TempDir(), "minilm")
	w := bertgen.NewWeights(bertgen.MiniLML6())
	if err := bertgen.WriteFolder(dir, w, bertgen.Folder{Vocab: vocab, TokenizerJSON: true, Uncased: true, MaxLength: 512}); err != nil {
		b.Fatal(err)
	}
	return dir
}

var benchSentences = []string{
	"The quick brown fox jumps over the lazy dog.",
	"Vector databases store embeddings for similarity search.",
	"A local index keeps every vector in memory.",
	"Mean pooling averages the hidden states of the tokens.",
	"She sold her old bicycle to a neighbour last week.",
	"Rain is expected across the north by Thursday evening.",
	"The committee will publish its report in the spring.",
	"Add two cups of flour and stir until the batter is smooth.",
	"Our train was delayed by forty minutes outside the station.",
	"He learned to play the piano when he was seven years old.",
	"The museum opens an exhibition of early photographs today.",
	"Please restart the server after installing the update.",
	"Prices of fresh vegetables rose sharply in the last month.",
	"The library extended its opening hours during exams.",
	"A small boat drifted slowly towards the rocky shore.",
	"Engineers tested the bridge with heavy trucks overnight.",
}

// longText is about 250 tokens of ordinary English.
func longText(tok *TransformersTokenizer, seed int) string {
	var parts []string
	for i := 0; ; i++ {
		next := append(parts, benchSentences[(seed+i)%len(benchSentences)])
		if len(tok.Encode(strings.Join(next, " "))) > 250 {
			return strings.Join(parts, " ")
		}
		parts = next
	}
}

func benchmarkSentences(b *testing.B, threads int, inputs func(*TransformersTokenizer) []string) {
	dir := miniLMFolder(b)
	m, err := CreateTransformersEmbeddings(b.Context(), &TransformersOptions{Model: dir, Device: DeviceCPU, Threads: threads})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	in := inputs(m.GetTokenizer())
	tokens := 0
	for _, s := range in {
		tokens += len(m.GetTokenizer().EncodeTruncated(s))
	}
	if _, err := m.CreateEmbeddings(b.Context(), in); err != nil { // warm up
		b.Fatal(err)
	}
	b.ResetTimer()
	start, cpuStart := time.Now(), cpuSeconds()
	calls := 0
	for b.Loop() {
		if _, err := m.CreateEmbeddings(b.Context(), in); err != nil {
			b.Fatal(err)
		}
		calls++
	}
	elapsed, cpu := time.Since(start).Seconds(), cpuSeconds()-cpuStart
	b.ReportMetric(float64(calls*len(in))/elapsed, "sentences/s")
	if cpu > 0 {
		// CPU time per sentence: on a busy machine, wall-clock rates say
		// little, and this says what the work costs.
		b.ReportMetric(1000*cpu/float64(calls*len(in)), "cpu-ms/sentence")
	}
	b.ReportMetric(float64(tokens)/float64(len(in)), "tokens/sentence")
}

// BenchmarkShortSentences64 embeds 64 short sentences in one call
// (target: at least 190 sentences/s on 2 cores).
func BenchmarkShortSentences64(b *testing.B) {
	for _, threads := range []int{0, 1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			benchmarkSentences(b, threads, func(*TransformersTokenizer) []string {
				in := make([]string, 64)
				for i := range in {
					in[i] = benchSentences[i%len(benchSentences)]
				}
				return in
			})
		})
	}
}

// BenchmarkLongSentences16 embeds 16 texts of about 250 tokens in one call
// (target: at least 11 sentences/s on 2 cores).
func BenchmarkLongSentences16(b *testing.B) {
	for _, threads := range []int{0, 1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			benchmarkSentences(b, threads, func(tok *TransformersTokenizer) []string {
				in := make([]string, 16)
				for i := range in {
					in[i] = longText(tok, i)
				}
				return in
			})
		})
	}
}

// BenchmarkLoadMiniLM measures creating TransformersEmbeddings on a
// MiniLM-L6-size model (90 MB): reading the file, the tokenizer, the
// session and its graph optimisation.
func BenchmarkLoadMiniLM(b *testing.B) {
	dir := miniLMFolder(b)
	for b.Loop() {
		m, err := CreateTransformersEmbeddings(b.Context(), &TransformersOptions{Model: dir, Device: DeviceCPU})
		if err != nil {
			b.Fatal(err)
		}
		m.Close()
	}
}
