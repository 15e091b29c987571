package codecjson_test

import (
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/conformance/codectest"
)

// BenchmarkCodec runs the benchmarks every codec shares (100k × 384
// items, encoded and decoded).
func BenchmarkCodec(b *testing.B) {
	codectest.RunBenchmarks(b, codecjson.New())
}
