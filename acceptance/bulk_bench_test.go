package acceptance_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	embedhosted "github.com/foliovec/folio/adapters/embed-hosted"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// bulkBenchDocs are n short markdown documents (about 400 bytes, one chunk
// each), seeded.
func bulkBenchDocs(n int) []core.DocumentInput {
	r := rand.New(rand.NewPCG(3, 4))
	docs := make([]core.DocumentInput, n)
	for i := range docs {
		docs[i] = core.DocumentInput{URI: fmt.Sprintf("notes/%04d.md", i), Text: docsBenchText(r, 400)}
	}
	return docs
}

// BenchmarkUpsertDocuments1000 stores 1,000 short documents with
// UpsertDocuments in a new index on the local file system: against an
// OpenAI-compatible server on 127.0.0.1 that takes 50 ms per call (the
// hosted adapter's default MaxTokens of 500 per call), with 1 and 4
// requests in flight, and with embed-hash in process.
func BenchmarkUpsertDocuments1000(b *testing.B) {
	docs := bulkBenchDocs(1000)
	srv := testkit.NewEmbeddingsServer(b, testkit.EmbeddingsServerOptions{Model: embedhash.New(nil), Latency: 50 * time.Millisecond})
	hosted, err := embedhosted.New(&embedhosted.Options{OSSModel: "bench", OSSEndpoint: srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name        string
		model       core.EmbeddingsModel
		concurrency int
	}{
		{"server-50ms/concurrency-1", hosted, 1},
		{"server-50ms/concurrency-4", hosted, 4},
		{"embedhash/concurrency-4", embedhash.New(nil), 4},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			srv.Calls.Store(0)
			n := 0
			for b.Loop() {
				n++
				ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
					FolderPath: filepath.Join(b.TempDir(), fmt.Sprint("docs", n)),
					Embeddings: bc.model,
				})
				if err != nil {
					b.Fatal(err)
				}
				if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
					b.Fatal(err)
				}
				if _, err := ix.UpsertDocuments(ctx, docs, &core.UpsertDocumentsOptions{Concurrency: bc.concurrency}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(srv.Calls.Load())/float64(n), "calls/op")
		})
	}
}
