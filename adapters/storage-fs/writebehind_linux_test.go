package storagefs

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/foliovec/folio/core"
)

// randomBytes returns n bytes from a fixed seed.
func randomBytes(n int) []byte {
	b := make([]byte, n+8)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	return b[:n]
}

// streamInPieces writes content through UpsertFileFrom in pieces of odd
// sizes (up to 3 MiB), as a cold file when cold is set, and returns the
// writer the storage gave.
func streamInPieces(t *testing.T, path string, content []byte, cold bool) *behindWriter {
	t.Helper()
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	var w *behindWriter
	r := rand.New(rand.NewPCG(3, 4))
	err = s.UpsertFileFrom(context.Background(), path, func(out io.Writer) error {
		w = out.(ctxWriter).w.(*behindWriter)
		if cold {
			out.(core.ColdFileHint).ColdFile()
		}
		for rest := content; len(rest) > 0; {
			n := min(len(rest), 1+r.IntN(3<<20))
			if _, err := out.Write(rest[:n]); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, content) {
		t.Fatalf("the file (%d bytes) differs from what was written (%d bytes)", len(got), len(content))
	}
	return w
}

// directSupported reports whether files in dir take O_DIRECT.
func directSupported(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, "probe"), os.O_CREATE|os.O_WRONLY|unix.O_DIRECT, 0o644)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// A write shorter than directAfter goes through the page cache, its full
// chunks handed to the disk as it goes: each started, all but the last
// two waited for.
func TestWriteBehindPacesALongWrite(t *testing.T) {
	const size = 3*writeBehindChunk + 12345
	w := streamInPieces(t, filepath.Join(t.TempDir(), "f"), randomBytes(size), false)
	if w.written != size || w.started != 3*writeBehindChunk || w.waited != writeBehindChunk || w.block != nil {
		t.Fatalf("written %d, started %d, waited %d, direct %v: want %d, %d, %d, false",
			w.written, w.started, w.waited, w.block != nil, size, 3*writeBehindChunk, writeBehindChunk)
	}
}

// Past directAfter the rest of a cold file goes around the page cache in
// aligned blocks, the last one padded and cut back: the file holds exactly
// what was written. A file not said to be cold stays in the page cache.
func TestLongColdWriteGoesDirect(t *testing.T) {
	dir := t.TempDir()
	if !directSupported(dir) {
		t.Skip("the temporary folder's file system does not take O_DIRECT")
	}
	if w := streamInPieces(t, filepath.Join(dir, "f"), randomBytes(directAfter+5), false); w.block != nil {
		t.Fatal("a file not said to be cold was written direct")
	}
	for _, size := range []int{directAfter + 2*directBlock, directAfter + 2*directBlock + 777, directAfter + 1} {
		w := streamInPieces(t, filepath.Join(dir, "f"), randomBytes(size), true)
		if w.block == nil || w.refused || w.written != int64(size) || w.started != directAfter/writeBehindChunk*writeBehindChunk {
			t.Fatalf("%d bytes: direct %v, refused %v, written %d, started %d", size, w.block != nil, w.refused, w.written, w.started)
		}
	}
}

// A direct write the file system refuses (here, from a block that is not
// aligned) is written through the page cache instead, and so is the rest.
func TestRefusedDirectWriteFallsBack(t *testing.T) {
	dir := t.TempDir()
	if !directSupported(dir) {
		t.Skip("the temporary folder's file system does not take O_DIRECT")
	}
	f, err := os.Create(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, finish := writeBehind(f, new(sync.Pool))
	w := out.(*behindWriter)
	w.ColdFile()
	want := randomBytes(directAfter + directBlock + 5000)
	if _, err := w.Write(want[:directAfter]); err != nil {
		t.Fatal(err)
	}
	w.goDirect()
	if w.block == nil {
		t.Fatal("direct writes were refused at the switch")
	}
	w.block = alignedBlock(directBlock + 1)[1:] // misaligned: a direct write of it fails
	if _, err := w.Write(want[directAfter:]); err != nil {
		t.Fatal(err)
	}
	if err := finish(); err != nil {
		t.Fatal(err)
	}
	if !w.refused {
		t.Fatal("the misaligned direct write was not refused")
	}
	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the file (%d bytes) differs from what was written (%d bytes)", len(got), len(want))
	}
}
