package core

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"
	"unsafe"
)

// segmentSeed encodes a small segment for the fuzz corpus.
func segmentSeed(f *testing.F, items []IndexItem, tombs []uint32) []byte {
	f.Helper()
	dim := -1
	if len(items) > 0 {
		dim = len(items[0].Vector)
		for _, it := range items {
			if len(it.Vector) != dim {
				dim = -1
			}
		}
	}
	if len(items) == 0 {
		dim = 0
	}
	var buf bytes.Buffer
	src := segmentSource{rows: len(items), dim: dim, row: func(i int) IndexItem { return items[i] }, ser: func(i int) uint32 { return uint32(i * 2) }, tombs: tombs}
	if err := encodeSegment(&buf, src, jsonTestCodec{}); err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzDecodeSegment: decoding any bytes as a segment never panics and
// either succeeds or fails with ErrCorrupt; what it decodes encodes back
// to the same bytes.
func FuzzDecodeSegment(f *testing.F) {
	f.Add(segmentSeed(f, nil, nil))
	f.Add(segmentSeed(f, []IndexItem{{ID: "a", Vector: []float32{1, 2, 3}, Norm: 3.7, Metadata: Metadata{"k": "v"}}}, []uint32{5, 9}))
	f.Add(segmentSeed(f, []IndexItem{{ID: "a", Vector: []float32{1}}, {ID: "b", Vector: []float32{1, 2}, MetadataFile: "x.json"}}, nil))
	f.Add([]byte(segMagic))
	f.Fuzz(func(t *testing.T, raw []byte) {
		seg, err := decodeSegment(bytes.NewReader(raw), int64(len(raw)), jsonTestCodec{}, &segArena{dim: -1})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if len(seg.items) != len(seg.serials) {
			t.Fatalf("%d items, %d serials", len(seg.items), len(seg.serials))
		}
		// Decoded in place from the same bytes (as a mapped file), a
		// segment of uniform vector length gives the same rows.
		if !littleEndian || len(raw) < segHeaderLen || binary.LittleEndian.Uint32(raw[12:]) == segMixed {
			return
		}
		aligned := make([]float32, (len(raw)+3)/4) // a mapping starts aligned
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(aligned))), len(raw))
		copy(b, raw)
		mapped, _, err := decodeMappedSegment(b, jsonTestCodec{}, &segArena{dim: -1})
		if err != nil {
			t.Fatalf("decodeSegment read it, decodeMappedSegment: %v", err)
		}
		// Vectors bit for bit (NaN != NaN), the rest as values.
		strip := func(s segment) (segment, [][]uint32) {
			out, vecs := s, make([][]uint32, len(s.items))
			out.items = slices.Clone(s.items)
			for i := range out.items {
				for _, x := range out.items[i].Vector {
					vecs[i] = append(vecs[i], math.Float32bits(x))
				}
				out.items[i].Vector = nil
			}
			return out, vecs
		}
		m, mv := strip(mapped)
		r, rv := strip(seg)
		if !reflect.DeepEqual(m, r) || !reflect.DeepEqual(mv, rv) {
			t.Fatalf("decodeMappedSegment = %+v, decodeSegment = %+v", mapped, seg)
		}
	})
}

// FuzzDecodeManifest: decoding any bytes as a segments manifest never
// panics and either succeeds with segments in order or fails with
// ErrCorrupt.
func FuzzDecodeManifest(f *testing.F) {
	m := newManifest(1, MetadataConfig{Indexed: []string{"a"}})
	m.NextSerial = 10
	m.Segments = []segmentEntry{{Name: "index.json.x.seg", First: 0, Rows: 4}, {Name: "index.json.y.seg", First: 6, Rows: 1, Tombstones: 2}}
	raw, _ := encodeManifest(m)
	f.Add(raw)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"format":"folio-segments","formatVersion":1,"segments":[{"first":5},{"first":2}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := decodeManifest(raw)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		for i := 1; i < len(m.Segments); i++ {
			if m.Segments[i].First < m.Segments[i-1].First {
				t.Fatal("segments out of order")
			}
		}
	})
}

// A segment whose checksum the caller knows (it wrote and summed it) is
// checked against that sum instead of summed again: a known sum the
// trailer does not hold is ErrCorrupt; the bytes are not read for it.
func TestDecodeMappedSegmentWithAKnownSum(t *testing.T) {
	items := []IndexItem{{ID: "a", Vector: []float32{1, 2}}, {ID: "b", Vector: []float32{3, 4}}}
	var buf bytes.Buffer
	src := segmentSource{rows: 2, dim: 2, row: func(i int) IndexItem { return items[i] }, ser: func(i int) uint32 { return uint32(i) }}
	sum, err := encodeSegmentSum(&buf, src, jsonTestCodec{})
	if err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if got := binary.LittleEndian.Uint32(b[len(b)-segTrailerLen:]); got != sum {
		t.Fatalf("encodeSegmentSum returned %08x, the trailer holds %08x", sum, got)
	}
	if _, _, err := decodeMappedSegmentSum(b, jsonTestCodec{}, &segArena{dim: -1}, &sum); err != nil {
		t.Fatalf("the known sum: %v", err)
	}
	wrong := sum + 1
	if _, _, err := decodeMappedSegmentSum(b, jsonTestCodec{}, &segArena{dim: -1}, &wrong); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("another sum: %v, want ErrCorrupt", err)
	}
	b[segHeaderLen] ^= 1 // a vector byte: only summing would see it
	if _, _, err := decodeMappedSegmentSum(b, jsonTestCodec{}, &segArena{dim: -1}, nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("summed after a flipped byte: %v, want ErrCorrupt", err)
	}
	if _, _, err := decodeMappedSegmentSum(b, jsonTestCodec{}, &segArena{dim: -1}, &sum); err != nil {
		t.Fatalf("known sum after a flipped byte: %v, want no error (the bytes are not summed)", err)
	}
}

// A mapped segment's decoded rows become the arena's items when they are
// its first, and are appended after the rows already there otherwise; each
// row's vector is a view of the mapping.
func TestMappedRowsJoinTheArena(t *testing.T) {
	items := []IndexItem{{ID: "a", Vector: []float32{1, 2}}, {ID: "b", Vector: []float32{3, 4}}}
	var buf bytes.Buffer
	src := segmentSource{rows: 2, dim: 2, row: func(i int) IndexItem { return items[i] }, ser: func(i int) uint32 { return uint32(i) }}
	if _, err := encodeSegmentSum(&buf, src, jsonTestCodec{}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	var all []IndexItem
	arena := &segArena{dim: -1, items: &all}
	for round := range 2 {
		seg, vecs, err := decodeMappedSegment(b, jsonTestCodec{}, arena)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 2*(round+1) || &seg.items[0] != &all[2*round] {
			t.Fatalf("round %d: the arena holds %d rows, the segment's are not its last", round, len(all))
		}
		for i, it := range seg.items {
			if it.ID != items[i].ID || !slices.Equal(it.Vector, items[i].Vector) || &it.Vector[0] != &vecs[2*i] {
				t.Fatalf("round %d, row %d: %+v", round, i, it)
			}
		}
	}
}
