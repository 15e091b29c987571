package embedhash

import (
	"context"
	"strings"
	"testing"
)

// BenchmarkEmbed2KB embeds batches of 2 KB English-like texts.
func BenchmarkEmbed2KB(b *testing.B) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog; vector search, café. ", 32)[:2048]
	inputs := make([]string, 16)
	for i := range inputs {
		inputs[i] = text
	}
	m := New(nil)
	ctx := context.Background()
	b.SetBytes(int64(len(text) * len(inputs)))
	for b.Loop() {
		if _, err := m.CreateEmbeddings(ctx, inputs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(inputs))/b.Elapsed().Seconds(), "embeds/s")
}
