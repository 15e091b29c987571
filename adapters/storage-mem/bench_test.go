package storagemem_test

import (
	"testing"

	"github.com/foliovec/folio/conformance/storagetest"
)

// BenchmarkStorage runs the benchmarks every storage shares: in memory, a
// write is the copy into the storage under its lock, a read the copy out.
func BenchmarkStorage(b *testing.B) {
	storagetest.RunBenchmarks(b, harnessAt(""))
}
