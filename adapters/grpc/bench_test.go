package grpcserver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/core"
)

// measure runs b.N calls of op spread over clients goroutines and reports
// queries/s and the p50 and p99 latency of a call.
func measure(b *testing.B, clients int, op func(ctx context.Context) error) {
	b.Helper()
	ctx := context.Background()
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				t0 := time.Now()
				if err := op(ctx); err != nil {
					b.Error(err)
					return
				}
				lat[i] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "queries/s")
	b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100])/1e6, "p99-ms")
	b.ReportMetric(0, "ns/op")
}

// benchServer serves one index "bench" of n random 384-dimension items.
func benchServer(b *testing.B, n int) (*testServer, *core.LocalIndex, [][]float32) {
	b.Helper()
	ts := startServer(b, nil)
	ctx := b.Context()
	if _, err := ts.client.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "bench"}); err != nil {
		b.Fatal(err)
	}
	mi, _ := ts.srv.Manager().GetIndex("bench")
	r := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		v := make([]float32, 384)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		return v
	}
	items := make([]core.IndexItem, n)
	for i := range items {
		items[i] = core.IndexItem{ID: fmt.Sprint(i), Vector: vec(), Metadata: core.Metadata{"n": float64(i % 10)}}
	}
	if _, err := mi.Index.BatchInsertItems(ctx, items); err != nil {
		b.Fatal(err)
	}
	queries := make([][]float32, 64)
	for i := range queries {
		queries[i] = vec()
	}
	return ts, mi.Index, queries
}

// BenchmarkQueryItems compares QueryItems by vector in process and over
// gRPC (127.0.0.1, plaintext) with 1, 8 and 32 concurrent clients.
func BenchmarkQueryItems(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			ts, ix, queries := benchServer(b, n)
			var k atomic.Int64
			query := func() []float32 { return queries[k.Add(1)%int64(len(queries))] }
			for _, g := range []int{1, 2, 16} {
				b.Run(fmt.Sprintf("in-process/goroutines=%d", g), func(b *testing.B) {
					measure(b, g, func(ctx context.Context) error {
						_, err := ix.QueryItems(ctx, query(), "", 10, nil, false)
						return err
					})
				})
			}
			// The floor of a call: a Healthcheck, which does no work,
			// over the same connection.
			b.Run("grpc-healthcheck/clients=1", func(b *testing.B) {
				measure(b, 1, func(ctx context.Context) error {
					_, err := ts.client.Healthcheck(ctx, &vectrapb.HealthcheckRequest{})
					return err
				})
			})
			for _, clients := range []int{1, 8, 32} {
				b.Run(fmt.Sprintf("grpc/clients=%d", clients), func(b *testing.B) {
					measure(b, clients, func(ctx context.Context) error {
						_, err := ts.client.QueryItems(ctx, &vectrapb.QueryItemsRequest{IndexName: "bench", Vector: query(), TopK: 10})
						return err
					})
				})
			}
		})
	}
}

// BenchmarkQueryDocuments runs QueryDocuments over gRPC on 200 documents of
// about 2 KB, with and without BM25.
func BenchmarkQueryDocuments(b *testing.B) {
	ts := startServer(b, nil)
	ctx := b.Context()
	if _, err := ts.client.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "docs", IsDocumentIndex: true}); err != nil {
		b.Fatal(err)
	}
	words := []string{"vector", "index", "search", "query", "folio", "document", "chunk", "token", "filter", "score", "cosine", "keyword"}
	r := rand.New(rand.NewPCG(3, 4))
	for d := range 200 {
		text := ""
		for range 300 {
			text += words[r.IntN(len(words))] + " "
		}
		if _, err := ts.client.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{IndexName: "docs", Uri: fmt.Sprintf("doc://%d", d), Text: text}); err != nil {
			b.Fatal(err)
		}
	}
	for _, bm25 := range []bool{false, true} {
		b.Run(fmt.Sprintf("bm25=%v", bm25), func(b *testing.B) {
			measure(b, 1, func(ctx context.Context) error {
				_, err := ts.client.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "docs", Query: "cosine keyword search", UseBm25: bm25})
				return err
			})
		})
	}
}
