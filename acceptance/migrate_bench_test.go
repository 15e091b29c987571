package acceptance_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// BenchmarkMigrateCodecs encodes and decodes the 100,000 × 384 index with
// both codecs and reports each file's size.
func BenchmarkMigrateCodecs(b *testing.B) {
	d := testkit.BenchIndex(100_000, 384)
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
	raw, err := codecjson.New().SerializeIndex(testkit.BenchIndex(10_000, 384))
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
