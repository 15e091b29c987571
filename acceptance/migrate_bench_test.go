package acceptance_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

// migrateBenchIndex generates the benchmark dataset deterministically
// (fixed seed, the same as codec-pb's benchmarks): n items with uuid-shaped
// ids, dims-dimension Gaussian vectors scaled to unit length, and two
// indexed metadata fields, a category (one of ten strings) and a year.
func migrateBenchIndex(n, dims int) core.IndexData {
	categories := [10]string{"news", "sports", "tech", "science", "arts", "travel", "food", "health", "business", "music"}
	r := rand.New(rand.NewPCG(20260524, 15))
	d := core.IndexData{
		Version:        1,
		MetadataConfig: core.MetadataConfig{Indexed: []string{"category", "year"}},
		Items:          make([]core.IndexItem, n),
	}
	arena := make([]float32, n*dims)
	for i := range d.Items {
		v := arena[i*dims : (i+1)*dims : (i+1)*dims]
		var sum float64
		for j := range v {
			x := r.NormFloat64()
			v[j] = float32(x)
			sum += x * x
		}
		scale := 1 / math.Sqrt(sum)
		var norm float64
		for j := range v {
			v[j] = float32(float64(v[j]) * scale)
			norm += float64(v[j]) * float64(v[j])
		}
		d.Items[i] = core.IndexItem{
			ID: fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x",
				r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, r.Uint32()&0xfff, r.Uint64()&0xffffffffffff),
			Metadata: core.Metadata{
				"category": categories[r.IntN(len(categories))],
				"year":     float64(1990 + r.IntN(35)),
			},
			Vector: v,
			Norm:   math.Sqrt(norm),
		}
	}
	return d
}

// BenchmarkMigrateCodecs encodes and decodes the 100,000 × 384 index with
// both codecs and reports each file's size.
func BenchmarkMigrateCodecs(b *testing.B) {
	d := migrateBenchIndex(100_000, 384)
	for _, c := range []core.IndexCodec{codecjson.New(), codecpb.New()} {
		data, err := c.SerializeIndex(d)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("encode"+c.Extension(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := c.SerializeIndex(d); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data)), "file-bytes")
		})
		b.Run("decode"+c.Extension(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := c.DeserializeIndex(data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data)), "file-bytes")
		})
	}
}

// BenchmarkMigrateIndex migrates a 10,000 × 384 index from JSON to
// protobuf and back on the local file system.
func BenchmarkMigrateIndex(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "idx")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	raw, err := codecjson.New().SerializeIndex(migrateBenchIndex(10_000, 384))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.json"), raw, 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		for _, to := range []string{folio.FormatProtobuf, folio.FormatJSON} {
			if err := folio.MigrateIndex(ctx, dir, folio.MigrateOptions{To: to}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
