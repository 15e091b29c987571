package segfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/foliovec/folio/core/internal/errs"
)

// testSource is a segment of vecs (uniform or mixed lengths), serials
// 0, 2, 4, …, tombs and the metadata blob meta.
func testSource(vecs [][]float32, tombs []uint32, meta string, codes bool) Source {
	dim := 0
	if len(vecs) > 0 {
		dim = len(vecs[0])
		for _, v := range vecs {
			if len(v) != dim {
				dim = -1
			}
		}
	}
	return Source{
		Rows:   len(vecs),
		Dim:    dim,
		Vector: func(i int) []float32 { return vecs[i] },
		Serial: func(i int) uint32 { return uint32(2 * i) },
		Tombs:  tombs,
		Codes:  codes,
		Meta:   func(w io.Writer) error { _, err := io.WriteString(w, meta); return err },
	}
}

func encodeTest(t testing.TB, src Source) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := Encode(&buf, src); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// keepMeta is a MetaFunc that keeps the blob.
func keepMeta(dst *[]byte) MetaFunc {
	return func(_ *Segment, meta []byte) error {
		*dst = slices.Clone(meta)
		return nil
	}
}

// vectors are seg's rows' vectors, bit for bit (NaN != NaN).
func vectors(seg *Segment) [][]uint32 {
	out := make([][]uint32, seg.Rows())
	seg.EachVector(func(i int, v []float32) {
		for _, x := range v {
			out[i] = append(out[i], math.Float32bits(x))
		}
	})
	return out
}

// aligned copies raw into memory aligned as a mapping is.
func aligned(raw []byte) []byte {
	mem := make([]float32, (len(raw)+3)/4)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(mem))), len(raw))
	copy(b, raw)
	return b
}

// FuzzDecode: decoding any bytes as a segment never panics and either
// succeeds or fails with ErrCorrupt; a segment without codes encodes back
// to the same bytes; decoded in place (as a mapped file) or from the parts
// after its vectors (as ranged reads give them), it gives the same parts.
func FuzzDecode(f *testing.F) {
	uniform := [][]float32{{1, 2, 3}, {-1, 0.5, 3}, {0, 0, 0}}
	f.Add(encodeTest(f, testSource(nil, nil, "{}", false)))
	f.Add(encodeTest(f, testSource(uniform, []uint32{9, 11}, `{"items":[]}`, false)))
	f.Add(encodeTest(f, testSource(uniform, []uint32{7}, "meta", true)))
	f.Add(encodeTest(f, testSource([][]float32{{1}, {1, 2}}, nil, "m", false)))
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var meta []byte
		arena := &Arena{Dim: -1}
		seg, err := Decode(bytes.NewReader(raw), int64(len(raw)), arena, keepMeta(&meta))
		if err != nil {
			if !errors.Is(err, errs.ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		h := seg.Header
		if h.Format == 2 && h.Codes == 0 {
			src := Source{Rows: seg.Rows(), Dim: int(h.Dim), Serial: func(i int) uint32 { return seg.Serials[i] }, Tombs: seg.Tombs,
				Meta: func(w io.Writer) error { _, err := w.Write(meta); return err }}
			if h.Dim == Mixed {
				src.Dim = -1
			}
			vecs := make([][]float32, seg.Rows())
			seg.EachVector(func(i int, v []float32) { vecs[i] = v })
			src.Vector = func(i int) []float32 { return vecs[i] }
			if again := encodeTest(t, src); !bytes.Equal(again, raw) {
				t.Fatalf("encoded again: %d bytes differ from the %d read", len(again), len(raw))
			}
		}
		if h.Dim == Mixed || !LittleEndian {
			return
		}
		var mappedMeta []byte
		mapped, err := DecodeMapped(aligned(raw), Check{}, keepMeta(&mappedMeta))
		if err != nil {
			t.Fatalf("Decode read it, DecodeMapped: %v", err)
		}
		if !reflect.DeepEqual(mapped.Serials, seg.Serials) || !reflect.DeepEqual(mapped.Tombs, seg.Tombs) ||
			!reflect.DeepEqual(mapped.Codes, seg.Codes) || !bytes.Equal(mappedMeta, meta) || !reflect.DeepEqual(vectors(&mapped), vectors(&seg)) {
			t.Fatal("DecodeMapped differs from Decode")
		}
		if h.Codes == 0 || h.Rows == 0 {
			return
		}
		vecEnd, codesAt, codesEnd := h.Layout()
		var restMeta []byte
		rest, err := DecodeRest(raw[:HeaderLen], raw[vecEnd:codesAt], raw[codesAt:codesEnd], raw[codesEnd:], h, keepMeta(&restMeta))
		if err != nil {
			t.Fatalf("Decode read it, DecodeRest: %v", err)
		}
		if !rest.Unread || !reflect.DeepEqual(rest.Serials, seg.Serials) || !reflect.DeepEqual(rest.Tombs, seg.Tombs) ||
			!reflect.DeepEqual(rest.Codes, seg.Codes) || !bytes.Equal(restMeta, meta) {
			t.Fatal("DecodeRest differs from Decode")
		}
	})
}

// Every byte of a segment is covered by a checksum: flipping any one is
// ErrCorrupt for Decode, and for DecodeMapped unless it is one of the
// vectors' (or their checksum's) that the check skips.
func TestEveryByteIsChecked(t *testing.T) {
	raw := encodeTest(t, testSource([][]float32{{1, 2}, {3, 4}, {5, 6}}, []uint32{1}, "metadata", true))
	h, err := ParseHeader(raw, int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	vecEnd, _, _ := h.Layout()
	for off := range raw {
		b := slices.Clone(raw)
		b[off] ^= 0x10
		if _, err := Decode(bytes.NewReader(b), int64(len(b)), &Arena{Dim: -1}, keepMeta(new([]byte))); !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("byte %d flipped: Decode %v, want ErrCorrupt", off, err)
		}
		// The vectors, and the trailer's checksum of them.
		vector := off >= HeaderLen && int64(off) < vecEnd || off >= len(raw)-TrailerLen && off < len(raw)-TrailerLen+4
		for _, codesAt := range []io.ReaderAt{nil, bytes.NewReader(b)} {
			_, err := DecodeMapped(aligned(b), Check{SkipVectors: true, CodesAt: codesAt}, keepMeta(new([]byte)))
			if vector && err != nil {
				t.Fatalf("vector byte %d flipped, vectors unchecked: DecodeMapped %v", off, err)
			}
			if !vector && !errors.Is(err, errs.ErrCorrupt) {
				t.Fatalf("byte %d flipped (codes read through a reader: %v): DecodeMapped %v, want ErrCorrupt", off, codesAt != nil, err)
			}
		}
	}
}

// With Check.CodesAt the checksum covering the codes reads them through
// it, not through the mapping: a code changed in the mapping alone passes,
// one changed in what the reader reads fails; a reader that fails fails
// the check. The codes themselves are still views of the mapping.
func TestCodesAreSummedThroughTheReader(t *testing.T) {
	raw := encodeTest(t, testSource([][]float32{{1, 2, 3, 4}, {3, 4, 5, 6}, {5, 6, 7, 8}}, nil, "metadata", true))
	h, err := ParseHeader(raw, int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	_, codesAt, codesEnd := h.Layout()
	at := int(codesEnd) - 1 // the last byte of the codes section
	changed := slices.Clone(raw)
	changed[at] ^= 0x10
	if _, err := DecodeMapped(aligned(changed), Check{SkipVectors: true, CodesAt: bytes.NewReader(raw)}, keepMeta(new([]byte))); err != nil {
		t.Fatalf("a code changed in the mapping alone: %v (the codes were summed from the mapping)", err)
	}
	if _, err := DecodeMapped(aligned(raw), Check{SkipVectors: true, CodesAt: bytes.NewReader(changed)}, keepMeta(new([]byte))); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("a code changed in what the reader reads: %v, want ErrCorrupt", err)
	}
	short := bytes.NewReader(raw[:codesAt+1])
	if _, err := DecodeMapped(aligned(raw), Check{SkipVectors: true, CodesAt: short}, keepMeta(new([]byte))); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("a reader that fails: %v, want ErrCorrupt", err)
	}
}

// ParallelCRCAt sums what ParallelCRC sums, in one part or several, from
// any offset.
func TestParallelCRCAt(t *testing.T) {
	b := make([]byte, 70<<20+13)
	for i := range b {
		b[i] = byte(i*7 + i>>11)
	}
	for _, span := range [][2]int{{0, len(b)}, {5, len(b) - 3}, {100, 4000}, {0, 0}} {
		got, err := ParallelCRCAt(bytes.NewReader(b), int64(span[0]), int64(span[1]-span[0]))
		if want := ParallelCRC(b[span[0]:span[1]]); err != nil || got != want {
			t.Fatalf("bytes %d:%d: %#x (%v), want %#x", span[0], span[1], got, err, want)
		}
	}
	if _, err := ParallelCRCAt(bytes.NewReader(b[:10]), 0, 20); err == nil {
		t.Fatal("a read past the end: no error")
	}
}

// Decode places uniform rows in the arena, one segment after another, and
// rows of another length in memory of their own.
func TestDecodeFillsTheArena(t *testing.T) {
	arena := &Arena{Dim: -1}
	for round, vecs := range [][][]float32{{{1, 2}, {3, 4}}, {{5, 6}}, {{7, 8, 9}}} {
		raw := encodeTest(t, testSource(vecs, nil, "", false))
		seg, err := Decode(bytes.NewReader(raw), -1, arena, keepMeta(new([]byte)))
		if err != nil {
			t.Fatal(err)
		}
		inArena := round < 2
		if got := len(seg.Vecs) > 0 && len(arena.Data) >= len(seg.Vecs) && &seg.Vecs[0] == &arena.Data[len(arena.Data)-len(seg.Vecs)]; got != inArena {
			t.Fatalf("round %d: rows in the arena %v, want %v", round, got, inArena)
		}
		seg.EachVector(func(i int, v []float32) {
			if !slices.Equal(v, vecs[i]) {
				t.Fatalf("round %d, row %d: %v, want %v", round, i, v, vecs[i])
			}
		})
	}
	if arena.Dim != -2 || !slices.Equal(arena.Data, []float32{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("arena of length %d holds %v", arena.Dim, arena.Data)
	}
}

// A MetaFunc's error fails every decoder, and a failing Err writes
// nothing.
func TestErrorsPassThrough(t *testing.T) {
	boom := errors.New("boom")
	src := testSource([][]float32{{1, 2}}, nil, "m", true)
	raw := encodeTest(t, src)
	fail := func(*Segment, []byte) error { return boom }
	if _, err := Decode(bytes.NewReader(raw), -1, &Arena{Dim: -1}, fail); !errors.Is(err, boom) {
		t.Errorf("Decode: %v", err)
	}
	if LittleEndian {
		if _, err := DecodeMapped(aligned(raw), Check{}, fail); !errors.Is(err, boom) {
			t.Errorf("DecodeMapped: %v", err)
		}
	}
	src.Err = func() error { return boom }
	var buf bytes.Buffer
	if _, err := Encode(&buf, src); !errors.Is(err, boom) || buf.Len() != 0 {
		t.Errorf("Encode with a failing source: %v, %d bytes written", err, buf.Len())
	}
	if binary.LittleEndian.Uint32(raw[32:]) != CodesOutliers {
		t.Errorf("codes kind %d, want %d", binary.LittleEndian.Uint32(raw[32:]), CodesOutliers)
	}
}
