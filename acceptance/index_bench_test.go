package acceptance_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// Benchmarks of opening index files written by Folio with the real codecs
// on the local file system (warm page cache): a new LocalIndex, then its
// first query, which loads the file. Gaussian unit vectors, a 10-valued
// category and a year, both indexed.

func benchGaussianItems(n, d int) []core.IndexItem {
	r := rand.New(rand.NewPCG(1, 2))
	items := make([]core.IndexItem, n)
	for i := range items {
		items[i] = core.IndexItem{ID: fmt.Sprintf("item-%07d", i), Vector: testkit.UnitVector(r, d),
			Metadata: core.Metadata{"category": fmt.Sprint("c", i%10), "year": 1990 + i%35}}
	}
	return items
}

func writeBenchIndex(b *testing.B, dir string, codec core.IndexCodec, n, d int) {
	b.Helper()
	ctx := context.Background()
	ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec})
	if err != nil {
		b.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"category", "year"}}}); err != nil {
		b.Fatal(err)
	}
	if _, err := ix.BatchInsertItems(ctx, benchGaussianItems(n, d)); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkOpen100kx384(b *testing.B) {
	for _, codec := range []core.IndexCodec{codecpb.New(), codecjson.New()} {
		b.Run(codec.Extension()[1:], func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "idx")
			writeBenchIndex(b, dir, codec, 100_000, 384)
			q := make([]float32, 384)
			q[0] = 1
			ctx := context.Background()
			runtime.GC()
			b.ResetTimer()
			for b.Loop() {
				ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec})
				if err != nil {
					b.Fatal(err)
				}
				if res, err := ix.QueryItems(ctx, q, "", 10, nil, false); err != nil || len(res) != 10 {
					b.Fatal(len(res), err)
				}
			}
		})
	}
}

// BenchmarkSave100kx384 is the index file write of a commit on a
// 100k×384 index (one single insert, which rewrites the file).
func BenchmarkSave100kx384(b *testing.B) {
	for _, codec := range []core.IndexCodec{codecpb.New(), codecjson.New()} {
		b.Run(codec.Extension()[1:], func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "idx")
			writeBenchIndex(b, dir, codec, 100_000, 384)
			ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			v := make([]float32, 384)
			v[1] = 1
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := ix.InsertItem(ctx, core.IndexItem{ID: fmt.Sprint("new-", i), Vector: v}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
