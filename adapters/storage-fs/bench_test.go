package storagefs_test

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

// BenchmarkUpsertFile1MB measures an atomic, durable replace of a 1 MiB
// file: temporary file, write, fsync, rename, fsync of the folder. The
// fsyncs dominate; the figure depends on the disk.
func BenchmarkUpsertFile1MB(b *testing.B) {
	ctx := b.Context()
	s, err := storagefs.New(&storagefs.Options{Root: b.TempDir()})
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
	s, err := storagefs.New(&storagefs.Options{Root: b.TempDir()})
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
	s, err := storagefs.New(&storagefs.Options{Root: b.TempDir()})
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

// BenchmarkWriteFiles10k measures a group write of 10,000 new 200-byte
// files (a batch's side-cars) with one durability barrier, against
// BenchmarkUpsertFile10k, the same files written one durable UpsertFile
// after another.
func BenchmarkWriteFiles10k(b *testing.B) {
	ctx := b.Context()
	content := bytes.Repeat([]byte{'x'}, 200)
	for b.Loop() {
		b.StopTimer()
		s := localStorage()
		dir := b.TempDir()
		files := make([]core.FileWrite, 10_000)
		for i := range files {
			files[i] = core.FileWrite{Path: fmt.Sprintf("%s/%05d.json", dir, i), Content: content}
		}
		b.StartTimer()
		if err := s.WriteFiles(ctx, files); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpsertFile1k is 1,000 of BenchmarkWriteFiles10k's files written
// one durable UpsertFile after another (a tenth: it is slow).
func BenchmarkUpsertFile1k(b *testing.B) {
	ctx := b.Context()
	content := bytes.Repeat([]byte{'x'}, 200)
	for b.Loop() {
		b.StopTimer()
		s := localStorage()
		dir := b.TempDir()
		b.StartTimer()
		for i := range 1_000 {
			if err := s.UpsertFile(ctx, fmt.Sprintf("%s/%05d.json", dir, i), content); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCreateEmpty10k is the floor under BenchmarkWriteFiles10k on the
// same disk: 10,000 empty files created and closed, nothing written or
// synced.
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
