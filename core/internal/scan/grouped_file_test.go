package scan

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// groupedFixture is a Grouped over two runs (two grids), rows 0..grouped-1
// of n in 7 partitions, with the codes and rows it was made from.
func groupedFixture(t testing.TB) (*Grouped, *Nibbles, *Rows, []map[string]any, [][]int32) {
	r := rand.New(rand.NewPCG(31, 32))
	const d = 40
	n := 2*MinRowsPerWorker + 9
	rows, meta := rowsOf(r, n, d)
	whole := quantizeNibbles(rows, n, nil)
	sealed := NewNibbles(d, []NibbleRun{{Grid: whole.runs[0].Grid, Codes: whole.runs[0].Codes[:n/2*whole.stride], Inv: whole.runs[0].Inv[:n/2], Sealed: true}})
	codes := quantizeNibbles(rows, n, sealed)
	lists := append(byRemainder(n-100, 7), nil) // and a partition left empty
	return GroupNibbles(codes, lists), codes, rows, meta, lists
}

func encodeGrouped(t testing.TB, g *Grouped, token uint32) []byte {
	var buf bytes.Buffer
	if err := g.Encode(&buf, token); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A Grouped written and read back answers every probe as the one in
// memory does, covers the partitions it was made of and no others, and
// keeps its token.
func TestGroupedFileRoundTrip(t *testing.T) {
	g, codes, rows, meta, lists := groupedFixture(t)
	data := encodeGrouped(t, g, 0xfeed)
	back, token, err := DecodeGrouped(data)
	if err != nil {
		t.Fatal(err)
	}
	if token != 0xfeed || back.Rows() != g.Rows() {
		t.Fatalf("token %#x rows %d, want 0xfeed and %d", token, back.Rows(), g.Rows())
	}
	if !back.Covers(lists) {
		t.Fatal("the decoded codes do not cover the partitions they were written for")
	}
	other := slices.Clone(lists)
	other[0], other[1] = other[1], other[0]
	if back.Covers(other) || back.Covers(lists[1:]) || back.Covers(append(byRemainder(g.Rows()+1, 7), nil)) {
		t.Fatal("the decoded codes cover other partitions")
	}
	r := rand.New(rand.NewPCG(33, 34))
	ctx := context.Background()
	for _, parts := range [][]int32{{0}, {3, 5}, {6, 0, 1, 2, 3, 4, 5, 7}} {
		q := make([]float32, codes.dim)
		for j := range q {
			q[j] = float32(r.NormFloat64())
		}
		want, err := NibbleProbe(ctx, rows, meta, q, 10, 4, codes, g, parts, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := NibbleProbe(ctx, rows, meta, q, 10, 4, codes, back, parts, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("parts %v: from the file %v, in memory %v", parts, got, want)
		}
	}
	// Unaligned bytes are copied, not viewed, and read the same.
	shifted := append(make([]byte, 1, len(data)+1), data...)[1:]
	if again, _, err := DecodeGrouped(shifted); err != nil || !again.Covers(lists) {
		t.Fatalf("unaligned: %v", err)
	}
}

// Every byte of the header and tables is checked: a file cut short, one
// byte changed before the codes, or trailing bytes are ErrGroupedCorrupt.
func TestGroupedFileCorruption(t *testing.T) {
	g, _, _, _, _ := groupedFixture(t)
	data := encodeGrouped(t, g, 1)
	codesAt := len(data) - g.Rows()*g.stride
	for _, bad := range [][]byte{
		nil,
		data[:groupedHeader-1],
		data[:len(data)-1],
		append(slices.Clone(data), 0),
	} {
		if _, _, err := DecodeGrouped(bad); !errors.Is(err, ErrGroupedCorrupt) {
			t.Fatalf("%d bytes: err %v, want ErrGroupedCorrupt", len(bad), err)
		}
	}
	for _, at := range []int{0, 9, 13, 21, 37, 41, groupedHeader + 3, codesAt / 2, codesAt - 1} {
		bad := slices.Clone(data)
		bad[at] ^= 0x40
		if _, _, err := DecodeGrouped(bad); !errors.Is(err, ErrGroupedCorrupt) {
			t.Fatalf("byte %d changed: err %v, want ErrGroupedCorrupt", at, err)
		}
	}
}

// FuzzDecodeGrouped: DecodeGrouped never panics, and what it takes
// encodes back to the same bytes.
func FuzzDecodeGrouped(f *testing.F) {
	g, _, _, _, _ := groupedFixture(f)
	f.Add(encodeGrouped(f, g, 7))
	f.Add(encodeGrouped(f, &Grouped{dim: 4, stride: 2, parts: make([][]group, 2)}, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, token, err := DecodeGrouped(data)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := g.Encode(&buf, token); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), data) {
			t.Fatalf("decoded and encoded again: %d bytes, was %d", buf.Len(), len(data))
		}
	})
}
