package segfile

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// The combined CRC of two parts is the CRC of the whole.
func FuzzCRCCombine(f *testing.F) {
	f.Add([]byte("hello, "), []byte("world"))
	f.Add([]byte{}, []byte("x"))
	f.Add([]byte("x"), []byte{})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		whole := crc32.Checksum(append(append([]byte{}, a...), b...), Table)
		if got := CRCCombine(crc32.Checksum(a, Table), crc32.Checksum(b, Table), int64(len(b))); got != whole {
			t.Fatalf("combined %08x, whole %08x", got, whole)
		}
	})
}

// ParallelCRC gives crc32.Checksum's answer on buffers split in parts.
func TestParallelCRC(t *testing.T) {
	b := make([]byte, 97<<20+13)
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < len(b); i += 4096 {
		b[i] = byte(r.Uint32())
	}
	if got, want := ParallelCRC(b), crc32.Checksum(b, Table); got != want {
		t.Fatalf("ParallelCRC = %08x, want %08x", got, want)
	}
}
