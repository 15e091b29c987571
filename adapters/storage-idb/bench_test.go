//go:build js && wasm

package storageidb_test

import (
	"testing"

	"github.com/foliovec/folio/conformance/storagetest"
)

// BenchmarkStorage runs the benchmarks every storage shares, each on a new
// database. Run in Chromium: make the wasm binary with GOOS=js GOARCH=wasm
// and go test -exec wasmbrowsertest -run '^$' -bench . (docs/benchmarks.md).
func BenchmarkStorage(b *testing.B) {
	storagetest.RunBenchmarks(b, func(t testing.TB) storagetest.Harness {
		return storagetest.Harness{Storage: freshStorage(t)}
	})
}
