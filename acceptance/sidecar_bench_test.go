package acceptance_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

// BenchmarkBatchInsertSidecars10k inserts 10,000 items of 384 dimensions
// in one batch into a new index on the local file system whose items all
// have a non-indexed key, so each gets a side-car file: the cost of
// side-cars (compare BenchmarkBatchInsertInline10k, the same items with
// every key indexed).
func BenchmarkBatchInsertSidecars10k(b *testing.B) {
	benchBatchInsert(b, []string{"category"})
}

// BenchmarkBatchInsertInline10k is BenchmarkBatchInsertSidecars10k with
// every key indexed: no side-car.
func BenchmarkBatchInsertInline10k(b *testing.B) {
	benchBatchInsert(b, []string{"category", "year"})
}

func benchBatchInsert(b *testing.B, indexed []string) {
	items := benchGaussianItems(10_000, 384)
	for _, codec := range []core.IndexCodec{codecjson.New(), codecpb.New()} {
		b.Run(codec.Extension()[1:], func(b *testing.B) {
			ctx := context.Background()
			n := 0
			for b.Loop() {
				n++
				dir := filepath.Join(b.TempDir(), fmt.Sprint("idx", n))
				ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec})
				if err != nil {
					b.Fatal(err)
				}
				if err := ix.CreateIndex(ctx, core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: indexed}}); err != nil {
					b.Fatal(err)
				}
				if _, err := ix.BatchInsertItems(ctx, items); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
