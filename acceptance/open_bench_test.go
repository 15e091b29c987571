package acceptance_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

// copyingCodec is a codec without the core.VectorArenaDecoder capability:
// the engine copies the decoded vectors into an arena of its own, as it
// did before the codecs handed it theirs.
type copyingCodec struct{ core.IndexCodec }

// BenchmarkOpenArena100kx384 is BenchmarkOpen100kx384 (a new LocalIndex on
// a 100k×384 index file, then its first query) with the codec handing the
// engine the array it decoded the vectors into ("arena") and without that
// capability ("copy"), on the same file. heap-MB is the Go heap in use
// with the last opened index alive, after a collection.
func BenchmarkOpenArena100kx384(b *testing.B) {
	for _, codec := range []core.IndexCodec{codecpb.New(), codecjson.New()} {
		b.Run(codec.Extension()[1:], func(b *testing.B) {
			if _, ok := codec.(core.VectorArenaDecoder); !ok {
				b.Fatalf("%T does not place vectors in an arena", codec)
			}
			if _, ok := core.IndexCodec(copyingCodec{codec}).(core.VectorArenaDecoder); ok {
				b.Fatal("copyingCodec hands the engine an arena")
			}
			dir := filepath.Join(b.TempDir(), "idx")
			writeBenchIndex(b, dir, codec, 100_000, 384)
			b.Run("arena", func(b *testing.B) { benchOpen(b, dir, codec) })
			b.Run("copy", func(b *testing.B) { benchOpen(b, dir, copyingCodec{codec}) })
		})
	}
}

func benchOpen(b *testing.B, dir string, codec core.IndexCodec) {
	q := make([]float32, 384)
	q[0] = 1
	ctx := context.Background()
	var ix *core.LocalIndex
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var err error
		ix, err = folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec})
		if err != nil {
			b.Fatal(err)
		}
		if res, err := ix.QueryItems(ctx, q, "", 10, nil, false); err != nil || len(res) != 10 {
			b.Fatal(len(res), err)
		}
	}
	b.StopTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/1e6, "heap-MB")
	runtime.KeepAlive(ix)
}
