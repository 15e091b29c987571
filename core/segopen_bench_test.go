package core

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkOpenSegmented100kx384 reads a segmented index of 100,000
// 384-dimension items written in ten commits from memory (every segment decoded
// whole: the storage maps nothing), its metadata through the JSON test
// codec.
func BenchmarkOpenSegmented100kx384(b *testing.B) {
	ctx := context.Background()
	st := newMemTestStorage()
	opts := IndexOptions{Storage: st, Codec: jsonTestCodec{}}
	w, err := NewLocalIndex("bench", opts)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.CreateIndex(ctx, CreateIndexConfig{Layout: LayoutSegmented}); err != nil {
		b.Fatal(err)
	}
	items := ixBenchItems(100_000, 384)
	for lo := 0; lo < len(items); lo += len(items) / 10 {
		if _, err := w.BatchInsertItems(ctx, items[lo:lo+len(items)/10]); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		r, err := NewLocalIndex("bench", opts)
		if err != nil {
			b.Fatal(err)
		}
		stats, err := r.GetIndexStats(ctx)
		if err != nil || stats.Items != len(items) {
			b.Fatal(fmt.Sprint(stats.Items, " items: "), err)
		}
		b.ReportMetric(float64(stats.Storage.Segments), "segments")
	}
}
