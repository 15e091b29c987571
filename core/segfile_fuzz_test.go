package core

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/foliovec/folio/core/internal/scan"
	"github.com/foliovec/folio/core/internal/segfile"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// segmentSeed encodes a small segment for the fuzz corpus.
func segmentSeed(f *testing.F, items []IndexItem, tombs []uint32) []byte {
	f.Helper()
	return encodeTestSegment(f, items, tombs, false)
}

// encodeTestSegment encodes items as a segment, with 4-bit codes when
// codes is set.
func encodeTestSegment(f testing.TB, items []IndexItem, tombs []uint32, codes bool) []byte {
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
	src := segmentSource{rows: len(items), dim: dim, row: func(i int) IndexItem { return items[i] }, ser: func(i int) uint32 { return uint32(i * 2) }, tombs: tombs, codes: codes}
	if _, err := encodeSegment(&buf, src, newFiles(nil, jsonTestCodec{}).encodeIndex); err != nil {
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
	f.Add([]byte(segfile.Magic))
	coded := []IndexItem{{ID: "a", Vector: []float32{1, 2, 3}}, {ID: "b", Vector: []float32{-1, 0.5, 3}}, {ID: "c", Vector: []float32{0, 0, 0}}}
	f.Add(encodeTestSegment(f, coded, []uint32{7}, true))
	f.Add(asFormat1(f, encodeTestSegment(f, coded, nil, false)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		ranged, rangedOK, rangedErr := decodeRangedBytes(raw)
		if rangedErr != nil && !errors.Is(rangedErr, ErrCorrupt) {
			t.Fatalf("read in parts: error %v does not wrap ErrCorrupt", rangedErr)
		}
		seg, err := decodeSegment(bytes.NewReader(raw), int64(len(raw)), jsonTestCodec{}, newSegArena())
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		// Read in parts, a segment with codes gives the same rows, their
		// vectors left unread.
		if rangedOK {
			if rangedErr != nil {
				t.Fatalf("decodeSegment read it, decodeSegmentRest: %v", rangedErr)
			}
			if !reflect.DeepEqual(ranged.serials, seg.serials) || !reflect.DeepEqual(ranged.tombs, seg.tombs) || !reflect.DeepEqual(*ranged.codes, *seg.codes) || len(ranged.items) != len(seg.items) {
				t.Fatal("decodeSegmentRest differs from decodeSegment")
			}
			for i := range ranged.items {
				want := seg.items[i]
				want.Vector = nil
				if !reflect.DeepEqual(ranged.items[i], want) {
					t.Fatalf("row %d read in parts: %+v, want %+v", i, ranged.items[i], want)
				}
			}
		}
		if len(seg.items) != len(seg.serials) {
			t.Fatalf("%d items, %d serials", len(seg.items), len(seg.serials))
		}
		// Decoded in place from the same bytes (as a mapped file), a
		// segment of uniform vector length gives the same rows.
		if !segfile.LittleEndian || len(raw) < segfile.HeaderLen || binary.LittleEndian.Uint32(raw[12:]) == segfile.Mixed {
			return
		}
		aligned := make([]float32, (len(raw)+3)/4) // a mapping starts aligned
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(aligned))), len(raw))
		copy(b, raw)
		mapped, _, err := decodeMappedSegment(b, jsonTestCodec{}, newSegArena(), segfile.Check{})
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
		if (mapped.codes == nil) != (seg.codes == nil) || mapped.codes != nil && !reflect.DeepEqual(*mapped.codes, *seg.codes) {
			t.Fatalf("decodeMappedSegment codes %+v, decodeSegment %+v", mapped.codes, seg.codes)
		}
		mapped.codes, seg.codes = nil, nil
		m, mv := strip(mapped)
		r, rv := strip(seg)
		if !reflect.DeepEqual(m, r) || !reflect.DeepEqual(mv, rv) {
			t.Fatalf("decodeMappedSegment = %+v, decodeSegment = %+v", mapped, seg)
		}
	})
}

// decodeRangedBytes decodes raw as a storage that reads parts of files
// gives it (rangeSegment): ok is false where rangeSegment would read it
// whole instead.
func decodeRangedBytes(raw []byte) (seg segment, ok bool, err error) {
	if len(raw) < segfile.HeaderLen {
		return segment{}, false, nil
	}
	h, err := segfile.ParseHeader(raw[:segfile.HeaderLen], int64(len(raw)))
	if err != nil || h.Codes == 0 || h.Dim == segfile.Mixed || h.Rows == 0 {
		return segment{}, false, nil
	}
	vecEnd, codesAt, codesEnd := h.Layout()
	if codesEnd > int64(len(raw)) {
		return segment{}, false, nil
	}
	seg, err = decodeSegmentRest(raw[:segfile.HeaderLen], raw[vecEnd:codesAt], raw[codesAt:codesEnd], raw[codesEnd:], h, jsonTestCodec{}, newSegArena())
	return seg, true, err
}

// FuzzOpenWithManifest: an index whose manifest is any bytes, beside
// intact segment files, opens or fails with ErrCorrupt, never panics, and
// never allocates on the manifest's word: what no segment holds.
func FuzzOpenWithManifest(f *testing.F) {
	st := newMemTestStorage()
	w, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, RetainDropped: -1})
	if err != nil {
		f.Fatal(err)
	}
	if err := w.CreateIndex(context.Background(), CreateIndexConfig{Layout: LayoutSegmented}); err != nil {
		f.Fatal(err)
	}
	for c := range 3 {
		items := make([]IndexItem, 40)
		for i := range items {
			items[i] = IndexItem{ID: fmt.Sprint(c, "-", i), Vector: []float32{float32(i), 1, float32(c)}}
		}
		if _, err := w.BatchInsertItems(context.Background(), items); err != nil {
			f.Fatal(err)
		}
	}
	if err := w.DeleteItem(context.Background(), "0-3"); err != nil {
		f.Fatal(err)
	}
	files := map[string][]byte{}
	for _, name := range st.fileNames(idxTestFolder) {
		files[name], _ = st.file(idxTestFolder + "/" + name)
	}
	manifestName := "index.json" + segfile.ManifestExt
	f.Add(files[manifestName])
	f.Add(bytes.Replace(files[manifestName], []byte(`"rows": 40`), []byte(`"rows": 1099511627776`), 1))
	f.Add(bytes.Replace(files[manifestName], []byte(`"rows": 40`), []byte(`"rows": 0`), 1))
	f.Fuzz(func(t *testing.T, raw []byte) {
		st := newMemTestStorage()
		for name, b := range files {
			st.put(idxTestFolder+"/"+name, b)
		}
		st.put(idxTestFolder+"/"+manifestName, raw)
		ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}})
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		stats, err := ix.GetIndexStats(context.Background())
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
			t.Fatalf("the open allocated %d MB", got>>20)
		}
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if stats.Items > 119 || stats.Storage.Tombstones < 0 {
			t.Fatalf("opened with %d items and %d tombstones", stats.Items, stats.Storage.Tombstones)
		}
	})
}

// asFormat1 rewrites a segment of format 2 without codes as format 1:
// the same bytes, with one checksum of everything before a 12-byte
// trailer.
func asFormat1(t testing.TB, b []byte) []byte {
	t.Helper()
	if binary.LittleEndian.Uint32(b[32:]) != 0 {
		t.Fatal("a segment with codes has no format 1")
	}
	out := slices.Clone(b[:len(b)-segfile.TrailerLen])
	binary.LittleEndian.PutUint32(out[8:], 1)
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, segfile.Table))
	return append(out, segfile.End...)
}

// A segment whose checksums the caller knows (it wrote and summed it) is
// checked against them instead of summed again: known sums the trailer
// does not hold are ErrCorrupt; the bytes are not read for them.
func TestDecodeMappedSegmentWithAKnownSum(t *testing.T) {
	items := []IndexItem{{ID: "a", Vector: []float32{1, 2}}, {ID: "b", Vector: []float32{3, 4}}}
	var buf bytes.Buffer
	src := segmentSource{rows: 2, dim: 2, row: func(i int) IndexItem { return items[i] }, ser: func(i int) uint32 { return uint32(i) }}
	sum, err := encodeSegment(&buf, src, newFiles(nil, jsonTestCodec{}).encodeIndex)
	if err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	tail := b[len(b)-segfile.TrailerLen:]
	if got := (segfile.Sums{Vecs: binary.LittleEndian.Uint32(tail), Rest: binary.LittleEndian.Uint32(tail[4:])}); got != sum {
		t.Fatalf("encodeSegment returned %+v, the trailer holds %+v", sum, got)
	}
	if _, _, err := decodeMappedSegment(b, jsonTestCodec{}, newSegArena(), segfile.Check{Known: &sum}); err != nil {
		t.Fatalf("the known sum: %v", err)
	}
	wrong := sum
	wrong.Vecs++
	if _, _, err := decodeMappedSegment(b, jsonTestCodec{}, newSegArena(), segfile.Check{Known: &wrong}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("another sum: %v, want ErrCorrupt", err)
	}
	b[segfile.HeaderLen] ^= 1 // a vector byte: only summing would see it
	if _, _, err := decodeMappedSegment(b, jsonTestCodec{}, newSegArena(), segfile.Check{}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("summed after a flipped byte: %v, want ErrCorrupt", err)
	}
	if _, _, err := decodeMappedSegment(b, jsonTestCodec{}, newSegArena(), segfile.Check{Known: &sum}); err != nil {
		t.Fatalf("known sum after a flipped byte: %v, want no error (the bytes are not summed)", err)
	}
}

// A segment with 4-bit codes carries its rows' scales and codes, on a grid
// measured on its rows, read alike from a stream and from a mapping. Its
// vectors have their own checksum: a reader that keeps codes may leave it
// unchecked, and a damaged byte anywhere else is still ErrCorrupt. A
// segment of format 1 is still read.
func TestSegmentCodes(t *testing.T) {
	const n, d = 300, 70
	vecs := gaussianUnitVectors(5, n, d)
	items := make([]IndexItem, n)
	for i, v := range vecs {
		items[i] = IndexItem{ID: fmt.Sprint("i", i), Vector: v, Metadata: Metadata{}}
	}
	items[7].Vector = make([]float32, d) // no direction
	raw := encodeTestSegment(t, items, []uint32{1000, 1001}, true)
	aligned := make([]float32, (len(raw)+3)/4)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(aligned))), len(raw))
	copy(b, raw)
	seg, vecsMapped, err := decodeMappedSegment(b, jsonTestCodec{}, newSegArena(), segfile.Check{})
	if err != nil {
		t.Fatal(err)
	}
	read, err := decodeSegment(bytes.NewReader(raw), int64(len(raw)), jsonTestCodec{}, newSegArena())
	if err != nil {
		t.Fatal(err)
	}
	if seg.codes == nil || read.codes == nil || !reflect.DeepEqual(*seg.codes, *read.codes) {
		t.Fatal("the codes differ between a stream and a mapping, or are missing")
	}
	c := seg.codes
	grid := scan.MeasureGrid(d, n, func(i int) []float32 { return items[i].Vector })
	stride := vecmath.NibbleStride(d)
	buf, want := make([]uint8, d), make([]byte, stride)
	for i, it := range items {
		if sc := vecmath.FastScale(it.Vector); c.Scales[i] != sc {
			t.Fatalf("row %d: scale %v, want %v", i, c.Scales[i], sc)
		}
		scan.CodeNibbles(want, buf, it.Vector, grid)
		if !bytes.Equal(c.Run.Codes[i*stride:(i+1)*stride], want) {
			t.Fatalf("row %d: codes differ from the grid's", i)
		}
	}
	if c.Run.Inv[7] != 0 || c.Run.Inv[8] == 0 || !c.Run.Sealed || !reflect.DeepEqual(c.Run.Grid, grid) {
		t.Fatalf("inverse scales %v %v, sealed %v, grid %+v", c.Run.Inv[7], c.Run.Inv[8], c.Run.Sealed, c.Run.Grid)
	}
	if !slices.Equal(vecsMapped[:d], items[0].Vector) {
		t.Fatal("the mapped vectors differ")
	}
	flip := func(off int) []byte {
		out := make([]float32, len(aligned))
		ob := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(raw))
		copy(ob, raw)
		ob[off] ^= 0x10
		return ob
	}
	codesAt := (segfile.HeaderLen + n*d*4 + (n+2)*4 + 7) &^ 7
	vecByte, codeByte, metaByte := segfile.HeaderLen+5, codesAt+8+n*8+d*8+10, len(raw)-segfile.TrailerLen-200
	if _, _, err := decodeMappedSegment(flip(vecByte), jsonTestCodec{}, newSegArena(), segfile.Check{SkipVectors: true}); err != nil {
		t.Fatalf("a flipped vector byte, vectors unchecked: %v", err)
	}
	for _, off := range []int{vecByte, codeByte, metaByte, 40, len(raw) - 10} {
		if _, _, err := decodeMappedSegment(flip(off), jsonTestCodec{}, newSegArena(), segfile.Check{SkipVectors: off != vecByte}); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped: %v, want ErrCorrupt", off, err)
		}
		if _, err := decodeSegment(bytes.NewReader(flip(off)), int64(len(raw)), jsonTestCodec{}, newSegArena()); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped, read: %v, want ErrCorrupt", off, err)
		}
	}
	old := asFormat1(t, encodeTestSegment(t, items, nil, false))
	got, err := decodeSegment(bytes.NewReader(old), int64(len(old)), jsonTestCodec{}, newSegArena())
	if err != nil || len(got.items) != n || got.codes != nil || !slices.Equal(got.items[3].Vector, items[3].Vector) {
		t.Fatalf("format 1: %d rows, %v", len(got.items), err)
	}
	copy(b, old)
	if _, _, err := decodeMappedSegment(b[:len(old)], jsonTestCodec{}, newSegArena(), segfile.Check{}); err != nil {
		t.Fatalf("format 1, mapped: %v", err)
	}
}

// A mapped segment's decoded rows become the arena's items when they are
// its first, and are appended after the rows already there otherwise; each
// row's vector is a view of the mapping.
func TestMappedRowsJoinTheArena(t *testing.T) {
	items := []IndexItem{{ID: "a", Vector: []float32{1, 2}}, {ID: "b", Vector: []float32{3, 4}}}
	var buf bytes.Buffer
	src := segmentSource{rows: 2, dim: 2, row: func(i int) IndexItem { return items[i] }, ser: func(i int) uint32 { return uint32(i) }}
	if _, err := encodeSegment(&buf, src, newFiles(nil, jsonTestCodec{}).encodeIndex); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	var all []IndexItem
	arena := newSegArena()
	arena.items = &all
	for round := range 2 {
		seg, vecs, err := decodeMappedSegment(b, jsonTestCodec{}, arena, segfile.Check{})
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
