package storagefs

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// A long streamed write reaches the file whole while its chunks are handed
// to the disk as it goes: every full chunk started, all but the last two
// waited for.
func TestWriteBehindPacesALongWrite(t *testing.T) {
	dir := t.TempDir()
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	const size = 5*writeBehindChunk + 12345
	want := make([]byte, size)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range want {
		want[i] = byte(r.Uint32())
	}
	var paced *behindWriter
	err = s.UpsertFileFrom(context.Background(), filepath.Join(dir, "big"), func(w io.Writer) error {
		paced = w.(ctxWriter).w.(*behindWriter)
		for rest := want; len(rest) > 0; {
			n := min(len(rest), 1+r.IntN(3<<20))
			if _, err := w.Write(rest[:n]); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "big"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the file differs from what was written")
	}
	if paced.written != size || paced.started != 5*writeBehindChunk || paced.waited != 3*writeBehindChunk {
		t.Fatalf("written %d, started %d, waited %d: want %d, %d, %d",
			paced.written, paced.started, paced.waited, size, 5*writeBehindChunk, 3*writeBehindChunk)
	}
}
