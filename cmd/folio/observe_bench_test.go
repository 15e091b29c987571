//go:build !noserver

package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	grpcserver "github.com/foliovec/folio/adapters/grpc"
	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

// BenchmarkServeObservability is QueryItems by vector over gRPC on
// 127.0.0.1, 16 clients each on its own connection, on 100k×384 items in
// memory, through serve's wiring: without metrics or traces, with
// --metrics-addr's interceptors and observers, and with traces too (spans
// recorded and batched to an exporter that drops them). One run of the
// three side by side is the measure of their cost (queries/s, p50, p99).
func BenchmarkServeObservability(b *testing.B) {
	const n, dims, clients = 100_000, 384, 16
	r := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		v := make([]float32, dims)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		return v
	}
	items := make([]core.IndexItem, n)
	for i := range items {
		items[i] = core.IndexItem{ID: fmt.Sprint(i), Vector: vec()}
	}
	queries := make([][]float32, 64)
	for i := range queries {
		queries[i] = vec()
	}
	for _, mode := range []string{"off", "metrics", "metrics+traces"} {
		b.Run(mode, func(b *testing.B) {
			o := &serveOptions{}
			if mode != "off" {
				o.metricsAddr = "127.0.0.1:0"
			}
			obs := newObservability(o, io.Discard)
			cfg := grpcserver.Options{Config: manager.Config{
				RootDir: "root", Formats: map[string]core.IndexCodec{folio.FormatJSON: codecjson.New()},
				ScanInterval: -1, IndexOptions: core.IndexOptions{Storage: core.NewMemoryStorage()},
			}}
			obs.configure(&cfg)
			if mode == "metrics+traces" {
				tr, err := newTracing(tracetest.NewNoopExporter())
				if err != nil {
					b.Fatal(err)
				}
				defer tr.shutdown(context.Background())
				tr.configure(&cfg)
			}
			srv, err := grpcserver.New(&cfg)
			if err != nil {
				b.Fatal(err)
			}
			stop, err := obs.serve(b.Context(), srv, false) // in memory
			if err != nil {
				b.Fatal(err)
			}
			defer stop()
			port, err := srv.Start(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Shutdown(context.Background())
			mi, err := srv.Manager().CreateIndex(b.Context(), "bench", manager.CreateConfig{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := mi.Index.BatchInsertItems(b.Context(), items); err != nil {
				b.Fatal(err)
			}
			conns := make([]vectrapb.VectraServiceClient, clients)
			for i := range conns {
				conn, err := grpc.NewClient(fmt.Sprintf("127.0.0.1:%d", port), grpc.WithTransportCredentials(insecure.NewCredentials()))
				if err != nil {
					b.Fatal(err)
				}
				defer conn.Close()
				conns[i] = vectrapb.NewVectraServiceClient(conn)
			}
			var k atomic.Int64
			lat := make([]time.Duration, b.N)
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for c := range clients {
				wg.Go(func() {
					for {
						i := next.Add(1) - 1
						if i >= int64(b.N) {
							return
						}
						t0 := time.Now()
						q := queries[k.Add(1)%int64(len(queries))]
						if _, err := conns[c].QueryItems(context.Background(), &vectrapb.QueryItemsRequest{IndexName: "bench", Vector: q, TopK: 10}); err != nil {
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
		})
	}
}
