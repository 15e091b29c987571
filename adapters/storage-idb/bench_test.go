//go:build js && wasm

package storageidb_test

import (
	"testing"
)

// Run in Chromium: make the wasm binary with GOOS=js GOARCH=wasm and
// go test -exec wasmbrowsertest -run '^$' -bench . (docs/benchmarks.md).

func BenchmarkUpsertFile1MiB(b *testing.B) {
	s := freshStorage(b)
	data := make([]byte, 1<<20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := s.UpsertFile(b.Context(), "f.bin", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadFile1MiB(b *testing.B) {
	s := freshStorage(b)
	data := make([]byte, 1<<20)
	if err := s.UpsertFile(b.Context(), "f.bin", data); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := s.ReadFile(b.Context(), "f.bin"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetDetails(b *testing.B) {
	s := freshStorage(b)
	if err := s.UpsertFile(b.Context(), "f.bin", []byte("x")); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.GetDetails(b.Context(), "f.bin"); err != nil {
			b.Fatal(err)
		}
	}
}
