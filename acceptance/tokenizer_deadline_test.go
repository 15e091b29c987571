package acceptance

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/core"
)

// One long word is no denial of service: o200k_base's byte-pair encoding
// is quadratic in a pre-token's length (150 KB of one letter took 40 s, 3 MB
// hours), so the tokenizer encodes long runs in bounded pieces and the
// document index splits under the call's context. A 3 MB one-letter
// document upserted with a short deadline fails with the deadline instead
// of running on; the figures for a 2 s deadline are in docs/benchmarks.md.
func TestUpsertOfOneLongWordKeepsItsDeadline(t *testing.T) {
	for _, letter := range []string{"a", "A", "-", " x"} {
		docs, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
			FolderPath: t.TempDir(),
			Embeddings: embedhash.New(nil),
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		if err := docs.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
			t.Fatal(err)
		}
		text := strings.Repeat(letter, 3<<20/len(letter))
		dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		start := time.Now()
		_, err = docs.UpsertDocument(dctx, "long.txt", text, "", nil, nil)
		took := time.Since(start)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%q: UpsertDocument = %v, want the deadline", letter, err)
		}
		// Not a speed assertion: without the bound the call runs for hours.
		if took > time.Minute {
			t.Errorf("%q: UpsertDocument returned %v after a 100 ms deadline", letter, took)
		}
		if n, _ := docs.GetCatalogStats(ctx); n.Documents != 0 {
			t.Errorf("%q: %d documents after a failed upsert", letter, n.Documents)
		}
	}
}
