package storagetest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// RunBenchmarks runs the benchmarks every storage shares, as
// sub-benchmarks of b, each on a fresh harness from newHarness (the one
// given to [Run]):
//
//   - UpsertFile1MiB: replacing a 1 MiB file;
//   - CreateFile1MiB: creating it, deleted between rounds (not timed);
//   - ReadFile1MiB: reading it back;
//   - GetDetails: of a small file;
//   - UpsertFile1k: 1,000 new files of 200 bytes (a batch's side-cars),
//     one UpsertFile after another;
//   - WriteFiles10k, where the storage is a core.GroupWriter: 10,000 such
//     files in one WriteFiles.
//
// Each round of the last two writes into a new folder, made untimed.
func RunBenchmarks(b *testing.B, newHarness func(t testing.TB) Harness) {
	b.Helper()
	mib := bytes.Repeat([]byte{0xA5}, 1<<20)
	b.Run("UpsertFile1MiB", func(b *testing.B) {
		h := newHarness(b)
		p := pathutil.Join(h.Root, "index.json")
		b.SetBytes(int64(len(mib)))
		for b.Loop() {
			if err := h.Storage.UpsertFile(b.Context(), p, mib); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CreateFile1MiB", func(b *testing.B) {
		h := newHarness(b)
		p := pathutil.Join(h.Root, "index.json")
		b.SetBytes(int64(len(mib)))
		for b.Loop() {
			if err := h.Storage.CreateFile(b.Context(), p, mib); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := h.Storage.DeleteFile(b.Context(), p); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
	b.Run("ReadFile1MiB", func(b *testing.B) {
		h := newHarness(b)
		p := pathutil.Join(h.Root, "index.json")
		if err := h.Storage.UpsertFile(b.Context(), p, mib); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(mib)))
		for b.Loop() {
			if _, err := h.Storage.ReadFile(b.Context(), p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("GetDetails", func(b *testing.B) {
		h := newHarness(b)
		p := pathutil.Join(h.Root, "f.bin")
		if err := h.Storage.UpsertFile(b.Context(), p, []byte("x")); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := h.Storage.GetDetails(b.Context(), p); err != nil {
				b.Fatal(err)
			}
		}
	})
	small := bytes.Repeat([]byte{'x'}, 200)
	// rounds hands each round a new folder with n file paths in it.
	rounds := func(b *testing.B, h Harness, n int) func() []string {
		round := 0
		return func() []string {
			round++
			dir := pathutil.Join(h.Root, fmt.Sprintf("round-%d", round))
			if err := h.Storage.CreateFolder(b.Context(), dir); err != nil {
				b.Fatal(err)
			}
			paths := make([]string, n)
			for i := range paths {
				paths[i] = pathutil.Join(dir, fmt.Sprintf("%05d.json", i))
			}
			return paths
		}
	}
	b.Run("UpsertFile1k", func(b *testing.B) {
		h := newHarness(b)
		next := rounds(b, h, 1_000)
		for b.Loop() {
			b.StopTimer()
			paths := next()
			b.StartTimer()
			for _, p := range paths {
				if err := h.Storage.UpsertFile(b.Context(), p, small); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	if OptionalOf(newHarness(b).Storage).GroupWriter == nil {
		return
	}
	b.Run("WriteFiles10k", func(b *testing.B) {
		h := newHarness(b)
		gw := OptionalOf(h.Storage).GroupWriter
		next := rounds(b, h, 10_000)
		for b.Loop() {
			b.StopTimer()
			paths := next()
			files := make([]core.FileWrite, len(paths))
			for i, p := range paths {
				files[i] = core.FileWrite{Path: p, Content: small}
			}
			b.StartTimer()
			if err := gw.WriteFiles(b.Context(), files); err != nil {
				b.Fatal(err)
			}
		}
	})
}
