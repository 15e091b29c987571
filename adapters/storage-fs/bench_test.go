package storagefs_test

import (
	"bytes"
	"testing"

	"github.com/foliovec/folio/adapters/storage-fs"
)

// BenchmarkUpsertFile1MB measures an atomic, durable replace of a 1 MiB
// file: temporary file, write, fsync, rename, fsync of the folder. The
// fsyncs dominate; the figure depends on the disk.
func BenchmarkUpsertFile1MB(b *testing.B) {
	ctx := b.Context()
	s, err := storagefs.NewRooted(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	content := bytes.Repeat([]byte{0xA5}, 1<<20)
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if err := s.UpsertFile(ctx, "index.json", content); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateFile1MB measures an exclusive, durable create of a 1 MiB
// file (temporary file linked into place), deleting it between rounds.
func BenchmarkCreateFile1MB(b *testing.B) {
	ctx := b.Context()
	s, err := storagefs.NewRooted(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	content := bytes.Repeat([]byte{0xA5}, 1<<20)
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if err := s.CreateFile(ctx, "index.json", content); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := s.DeleteFile(ctx, "index.json"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkReadFile1MB measures reading a 1 MiB file back.
func BenchmarkReadFile1MB(b *testing.B) {
	ctx := b.Context()
	s, err := storagefs.NewRooted(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
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
