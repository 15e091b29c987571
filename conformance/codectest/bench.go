package codectest

import (
	"bytes"
	"testing"

	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// BenchItems and BenchDims are the size of the index RunBenchmarks encodes and decodes:
// testkit.BenchIndex's 100,000 items of 384 dimensions.
const (
	BenchItems = 100_000
	BenchDims  = 384
)

// RunBenchmarks runs the benchmarks every codec shares, as sub-benchmarks
// of b, on the same index for every codec: EncodeIndex and DecodeIndex
// (SerializeIndex and DeserializeIndex, the file's size reported as
// file-bytes), SerializeMetadata of one item's metadata, and, where c has
// the capability, EncodeIndexTo (streaming to a counting writer),
// DecodeIndexArena and DecodeIndexFrom.
func RunBenchmarks(b *testing.B, c core.IndexCodec) {
	b.Helper()
	var data core.IndexData
	var file []byte
	// built once, on the first benchmark that needs them
	setup := func(b *testing.B) {
		if file != nil {
			return
		}
		data = testkit.BenchIndex(BenchItems, BenchDims)
		var err error
		if file, err = c.SerializeIndex(data); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("EncodeIndex", func(b *testing.B) {
		setup(b)
		b.SetBytes(int64(len(file)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.SerializeIndex(data); err != nil {
				b.Fatal(err)
			}
		}
		// After the loop: b.Loop's first call deletes metrics reported before it.
		b.ReportMetric(float64(len(file)), "file-bytes")
	})
	if enc, ok := c.(core.IndexStreamEncoder); ok {
		b.Run("EncodeIndexTo", func(b *testing.B) {
			setup(b)
			src := core.IndexSource{Version: data.Version, MetadataConfig: data.MetadataConfig, Len: len(data.Items),
				Item: func(i int) core.IndexItem { return data.Items[i] }}
			w := &countingWriter{}
			b.ReportAllocs()
			for b.Loop() {
				w.n = 0
				if err := enc.EncodeIndexTo(w, src); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(w.n)
		})
	}
	decoded := func(b *testing.B, d core.IndexData, err error) {
		if err != nil {
			b.Fatal(err)
		}
		if len(d.Items) != BenchItems {
			b.Fatalf("decoded %d items, want %d", len(d.Items), BenchItems)
		}
	}
	b.Run("DecodeIndex", func(b *testing.B) {
		setup(b)
		b.SetBytes(int64(len(file)))
		b.ReportAllocs()
		for b.Loop() {
			d, err := c.DeserializeIndex(file)
			decoded(b, d, err)
		}
		b.ReportMetric(float64(len(file)), "file-bytes")
	})
	if dec, ok := c.(core.VectorArenaDecoder); ok {
		b.Run("DecodeIndexArena", func(b *testing.B) {
			setup(b)
			b.SetBytes(int64(len(file)))
			b.ReportAllocs()
			for b.Loop() {
				d, _, err := dec.DeserializeIndexArena(file)
				decoded(b, d, err)
			}
		})
	}
	if dec, ok := c.(core.IndexStreamDecoder); ok {
		b.Run("DecodeIndexFrom", func(b *testing.B) {
			setup(b)
			b.SetBytes(int64(len(file)))
			b.ReportAllocs()
			for b.Loop() {
				d, _, err := dec.DecodeIndexFrom(bytes.NewReader(file), int64(len(file)))
				decoded(b, d, err)
			}
		})
	}
	b.Run("SerializeMetadata", func(b *testing.B) {
		m := core.Metadata{"category": "news", "year": 2020, "title": "A \"quoted\" title", "score": 0.25, "featured": true, "text": "vector cosine score search client"}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.SerializeMetadata(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }
