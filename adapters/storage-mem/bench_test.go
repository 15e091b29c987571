package storagemem_test

import (
	"bytes"
	"testing"

	"github.com/foliovec/folio/adapters/storage-mem"
)

// BenchmarkUpsertFile1MB measures replacing a 1 MiB file: the copy into the
// storage under its lock.
func BenchmarkUpsertFile1MB(b *testing.B) {
	ctx := b.Context()
	s := storagemem.New()
	content := bytes.Repeat([]byte{0xA5}, 1<<20)
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if err := s.UpsertFile(ctx, "index.json", content); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFile1MB measures reading a 1 MiB file: the copy out.
func BenchmarkReadFile1MB(b *testing.B) {
	ctx := b.Context()
	s := storagemem.New()
	content := bytes.Repeat([]byte{0xA5}, 1<<20)
	if err := s.UpsertFile(ctx, "index.json", content); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, err := s.ReadFile(ctx, "index.json"); err != nil {
			b.Fatal(err)
		}
	}
}
