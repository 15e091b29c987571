package core

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// quantBenchIndexes caches one index per size: building 1M×384 takes
// longer than the queries measured on it.
var quantBenchIndexes sync.Map // [2]int{n, d} → *LocalIndex

// quantBenchIndex returns the benchmark index of n Gaussian unit vectors of
// dimension d, with int8 codes derived; a query runs exactly or quantized
// depending on rerank.
func quantBenchIndex(b *testing.B, n, d int) *LocalIndex {
	if ix, ok := quantBenchIndexes.Load([2]int{n, d}); ok {
		return ix.(*LocalIndex)
	}
	ix := ixBenchIndex(b, n, d)
	s := ix.cur.Load()
	c, err := quantize(context.Background(), s, nil, CodesInt8)
	if err != nil {
		b.Fatal(err)
	}
	s.quant.Store(c)
	quantBenchIndexes.Store([2]int{n, d}, ix)
	return ix
}

// ixBenchQuantized measures, in one run, the exact scan and the quantized
// scan with the default rerank factor on the same index and queries, and
// reports the quantized scan's recall@10 against the exact one.
func ixBenchQuantized(b *testing.B, n, d int) {
	ix := quantBenchIndex(b, n, d)
	queries := gaussianUnitVectors(2, 64, d)
	ctx := context.Background()
	run := func(b *testing.B, rerank int) {
		ix.rerank = rerank
		defer func() { ix.rerank = 0 }()
		runtime.GC()
		b.ResetTimer()
		cpu := processCPUTime()
		for i := 0; b.Loop(); i++ {
			res, err := ix.QueryItems(ctx, queries[i%len(queries)], "", 10, nil, false)
			if err != nil || len(res) != 10 {
				b.Fatal(len(res), err)
			}
		}
		reportCPU(b, cpu)
	}
	b.Run("exact", func(b *testing.B) { run(b, 0) })
	b.Run("int8", func(b *testing.B) {
		run(b, DefaultRerankFactor)
		b.StopTimer()
		found := 0
		for _, q := range queries {
			ix.rerank = 0
			want, _ := ix.QueryItems(ctx, q, "", 10, nil, false)
			ix.rerank = DefaultRerankFactor
			got, _ := ix.QueryItems(ctx, q, "", 10, nil, false)
			ids := resultIDs(got)
			for _, w := range want {
				if slices.Contains(ids, w.Item.ID) {
					found++
				}
			}
		}
		ix.rerank = 0
		b.ReportMetric(float64(found)/float64(10*len(queries)), "recall@10")
	})
}

func BenchmarkQueryQuantized100kx384(b *testing.B) { ixBenchQuantized(b, 100_000, 384) }

func BenchmarkQueryQuantized1Mx384(b *testing.B) { ixBenchQuantized(b, 1_000_000, 384) }

// BenchmarkQueryBatch100kx384 measures, in one run, 64 queries answered
// one QueryItems call at a time and in QueryItemsBatch calls of 4, 8, 16
// and 64, per query.
func BenchmarkQueryBatch100kx384(b *testing.B) {
	const n, d, batch = 100_000, 384, 64
	ix := quantBenchIndex(b, n, d)
	queries := gaussianUnitVectors(2, batch, d)
	ctx := context.Background()
	b.Run("one-at-a-time", func(b *testing.B) {
		runtime.GC()
		b.ResetTimer()
		for b.Loop() {
			for _, q := range queries {
				if res, err := ix.QueryItems(ctx, q, "", 10, nil, false); err != nil || len(res) != 10 {
					b.Fatal(len(res), err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch)/1e6, "ms/query")
	})
	// 4 and 8: the queries a shared pass of the server typically holds
	// under 16 clients; 16: the largest batch 16 concurrent callers can
	// form; 64: the engine's.
	for _, size := range []int{4, 8, 16, batch} {
		b.Run(fmt.Sprintf("batch-%d", size), func(b *testing.B) {
			qs := make([]ItemQuery, batch)
			for i, q := range queries {
				qs[i] = ItemQuery{Vector: q, TopK: 10}
			}
			runtime.GC()
			b.ResetTimer()
			for b.Loop() {
				for lo := 0; lo < batch; lo += size {
					if res, err := ix.QueryItemsBatch(ctx, qs[lo:lo+size]); err != nil || len(res) != size {
						b.Fatal(len(res), err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch)/1e6, "ms/query")
		})
	}
}
