package storageblob_test

import (
	"path/filepath"
	"testing"

	"github.com/foliovec/folio/conformance/storagetest"
)

// BenchmarkStorage runs the benchmarks every storage shares on a file://
// bucket in a temporary folder (go-cloud's driver for local files).
func BenchmarkStorage(b *testing.B) {
	storagetest.RunBenchmarks(b, func(t testing.TB) storagetest.Harness {
		return storagetest.Harness{Storage: openStorage(t, "file://"+filepath.ToSlash(t.TempDir()))}
	})
}
