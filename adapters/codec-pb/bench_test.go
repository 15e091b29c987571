package codecpb_test

import (
	"testing"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/adapters/codec-pb/internal/pb"
	"github.com/foliovec/folio/conformance/codectest"
	"github.com/foliovec/folio/conformance/testkit"
	"google.golang.org/protobuf/proto"
)

// BenchmarkCodec runs the benchmarks every codec shares (100k × 384
// items, encoded, streamed and decoded).
func BenchmarkCodec(b *testing.B) {
	codectest.RunBenchmarks(b, codecpb.New())
}

// BenchmarkDecodeIndexGenerated is the baseline the hand-written decoder
// replaces: proto.Unmarshal of BenchmarkCodec/DecodeIndex's file into the
// generated types alone, before any conversion to core types.
func BenchmarkDecodeIndexGenerated(b *testing.B) {
	data, err := codecpb.New().SerializeIndex(testkit.BenchIndex(codectest.BenchItems, codectest.BenchDims))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var m pb.IndexData
		if err := proto.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
	}
}
