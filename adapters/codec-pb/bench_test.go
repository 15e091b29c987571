package codecpb_test

import (
	"testing"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/adapters/codec-pb/internal/pb"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
	"google.golang.org/protobuf/proto"
)

// The benchmark index: 100,000 items of 384 dimensions, category + year.
const (
	benchItems = 100_000
	benchDims  = 384
)

func BenchmarkEncodeIndex(b *testing.B) {
	c := codecpb.New()
	d := testkit.BenchIndex(benchItems, benchDims)
	var size int
	b.ReportAllocs()
	for b.Loop() {
		out, err := c.SerializeIndex(d)
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.SetBytes(int64(size))
	b.ReportMetric(float64(size), "file-bytes")
}

// BenchmarkEncodeIndexTo: the streaming encoder a commit writes the index
// file with, to io.Discard.
func BenchmarkEncodeIndexTo(b *testing.B) {
	c := codecpb.New()
	d := testkit.BenchIndex(benchItems, benchDims)
	src := core.IndexSource{Version: d.Version, MetadataConfig: d.MetadataConfig, Len: len(d.Items), Item: func(i int) core.IndexItem { return d.Items[i] }}
	w := &countingWriter{}
	b.ReportAllocs()
	for b.Loop() {
		w.n = 0
		if err := c.EncodeIndexTo(w, src); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(w.n)
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

func BenchmarkDecodeIndex(b *testing.B) {
	c := codecpb.New()
	data := encodeBenchIndex(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := c.DeserializeIndex(data)
		if err != nil {
			b.Fatal(err)
		}
		if len(d.Items) != benchItems {
			b.Fatalf("decoded %d items", len(d.Items))
		}
	}
	b.ReportMetric(float64(len(data)), "file-bytes")
}

// BenchmarkDecodeIndexGenerated is the baseline the hand-written decoder
// replaces: proto.Unmarshal into the generated types alone, before any
// conversion to core types.
func BenchmarkDecodeIndexGenerated(b *testing.B) {
	data := encodeBenchIndex(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var m pb.IndexData
		if err := proto.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
	}
}

func encodeBenchIndex(b *testing.B) []byte {
	b.Helper()
	data, err := codecpb.New().SerializeIndex(testkit.BenchIndex(benchItems, benchDims))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkSerializeMetadata(b *testing.B) {
	c := codecpb.New()
	m := core.Metadata{"category": "news", "year": 2020, "title": "A \"quoted\" title", "score": 0.25, "featured": true, "text": "vector cosine score search client"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.SerializeMetadata(m); err != nil {
			b.Fatal(err)
		}
	}
}
