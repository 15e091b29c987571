package storagefs_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/foliovec/folio/conformance/storagetest"
)

// BenchmarkStorage runs the benchmarks every storage shares, on a
// temporary folder of this machine's disk: each write is durable (fsync of
// the file and of its folder), so the figures depend on the disk.
func BenchmarkStorage(b *testing.B) {
	storagetest.RunBenchmarks(b, newHarness)
}

// BenchmarkCreateEmpty10k is the floor under BenchmarkStorage/WriteFiles10k
// on the same disk: 10,000 empty files created and closed, nothing written
// or synced.
func BenchmarkCreateEmpty10k(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		for i := range 10_000 {
			f, err := os.Create(fmt.Sprintf("%s/%05d.json", dir, i))
			if err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	}
}
