package scan

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"unsafe"

	"github.com/foliovec/folio/core/internal/vecmath"
)

// The grouped codes file holds a Grouped as it lies in memory, so that an
// open maps it instead of copying every row's codes from the segments (a
// gather over the whole of them). All values are little-endian:
//
//	offset  size            field
//	0       8               groupedMagic
//	8       4               format version (1)
//	12      4               dim: values a row
//	16      4               stride: bytes of a row's packed codes
//	20      4               partitions
//	24      4               grids
//	28      4               groups
//	32      4               rows
//	36      4               token: the caller's, naming what the codes go with
//	40      4               CRC-32C of bytes 0–39 and of the tables
//	44      4               zero
//	48      grids·(8·dim+4)  each grid: dim float32 Lo, dim float32 Step, uint32 From
//	…       (partitions+1)·4 each partition's first group; the last is groups
//	…       groups·8        each group: its grid, its row count
//	…       rows·4          the rows, each group's ascending, group after group
//	…       rows·4          their inverse scales, float32
//	…       rows·stride     their codes (not summed: a code only ranks a
//	                        candidate, which the re-rank scores exactly)
//
// Everything from offset 48 to the codes is 4-byte aligned, so that a
// mapping of the file is read in place.

const (
	groupedMagic   = "FOLIOGRP"
	groupedVersion = 1
	groupedHeader  = 48
)

// ErrGroupedCorrupt is the error of a grouped codes file that
// DecodeGrouped cannot read.
var ErrGroupedCorrupt = errors.New("scan: corrupt grouped codes file")

var groupedCRC = crc32.MakeTable(crc32.Castagnoli)

// Encode writes g to w in the grouped codes file format, with token (see
// DecodeGrouped).
func (g *Grouped) Encode(w io.Writer, token uint32) error {
	grids, gridOf := []*Grid{}, map[*Grid]uint32{}
	var groups []group
	first := make([]uint32, 0, len(g.parts)+1)
	for _, p := range g.parts {
		first = append(first, uint32(len(groups)))
		for _, gr := range p {
			if _, ok := gridOf[gr.grid]; !ok {
				gridOf[gr.grid] = uint32(len(grids))
				grids = append(grids, gr.grid)
			}
			groups = append(groups, gr)
		}
	}
	first = append(first, uint32(len(groups)))
	le := binary.LittleEndian
	var t []byte // the tables: everything the CRC covers after the header
	for _, gd := range grids {
		t = appendF32(appendF32(t, gd.Lo), gd.Step)
		t = le.AppendUint32(t, uint32(gd.From))
	}
	for _, f := range first {
		t = le.AppendUint32(t, f)
	}
	for _, gr := range groups {
		t = le.AppendUint32(le.AppendUint32(t, gridOf[gr.grid]), uint32(len(gr.rows)))
	}
	for _, gr := range groups {
		for _, r := range gr.rows {
			t = le.AppendUint32(t, uint32(r))
		}
	}
	for _, gr := range groups {
		t = appendF32(t, gr.inv)
	}
	h := make([]byte, 0, groupedHeader)
	h = append(h, groupedMagic...)
	for _, v := range []int{groupedVersion, g.dim, g.stride, len(g.parts), len(grids), len(groups), g.rows} {
		h = le.AppendUint32(h, uint32(v))
	}
	h = le.AppendUint32(h, token)
	sum := crc32.Update(crc32.Checksum(h, groupedCRC), groupedCRC, t)
	h = le.AppendUint32(le.AppendUint32(h, sum), 0)
	if _, err := w.Write(h); err != nil {
		return err
	}
	if _, err := w.Write(t); err != nil {
		return err
	}
	for _, gr := range groups {
		if _, err := w.Write(gr.codes); err != nil {
			return err
		}
	}
	return nil
}

func appendF32(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// DecodeGrouped reads a grouped codes file and returns it with the token
// Encode stored. Its codes, rows and inverse scales are views of data
// where the host is little-endian and data 4-byte aligned (a mapping), so
// data must stay valid and unchanged while the Grouped is used. A file cut
// short, altered in its tables or inconsistent is ErrGroupedCorrupt; its
// codes are not checked. Whether its rows are those of the partitions the
// caller holds is Covers.
func DecodeGrouped(data []byte) (g *Grouped, token uint32, err error) {
	le := binary.LittleEndian
	if len(data) < groupedHeader || string(data[:8]) != groupedMagic {
		return nil, 0, ErrGroupedCorrupt
	}
	hv := func(off int) int { return int(le.Uint32(data[off:])) }
	version, dim, stride, parts, grids, groups, rows := hv(8), hv(12), hv(16), hv(20), hv(24), hv(28), hv(32)
	token = le.Uint32(data[36:])
	if version != groupedVersion || dim <= 0 || dim > 1<<16 || stride != vecmath.NibbleStride(dim) ||
		parts > 1<<24 || grids > groups || groups > rows || rows > math.MaxInt32 || le.Uint32(data[44:]) != 0 {
		return nil, 0, ErrGroupedCorrupt
	}
	// Sizes in int64: each count is below 2³², so no product overflows.
	tables := int64(grids)*int64(8*dim+4) + int64(parts+1)*4 + int64(groups)*8 + int64(rows)*8
	if int64(len(data)) != groupedHeader+tables+int64(rows)*int64(stride) {
		return nil, 0, ErrGroupedCorrupt
	}
	end := groupedHeader + int(tables)
	sum := crc32.Update(crc32.Checksum(data[:40], groupedCRC), groupedCRC, data[groupedHeader:end])
	if sum != le.Uint32(data[40:]) {
		return nil, 0, ErrGroupedCorrupt
	}
	r := reader{b: data[groupedHeader:end]}
	gs := make([]*Grid, grids)
	for i := range gs {
		gs[i] = &Grid{Lo: r.f32s(dim), Step: r.f32s(dim), From: int(r.u32())}
	}
	first := r.u32s(parts + 1)
	if first[0] != 0 || int(first[parts]) != groups {
		return nil, 0, ErrGroupedCorrupt
	}
	table := r.u32s(2 * groups)
	rowsAt := r.i32s(rows)
	invAt := r.f32s(rows)
	codes := data[end:]
	g = &Grouped{dim: dim, stride: stride, rows: rows, parts: make([][]group, parts), read: true}
	at, seen := 0, uint32(0) // grids are numbered in the order groups first use them

	for p := range parts {
		lo, hi := first[p], first[p+1]
		if hi < lo || int(hi) > groups {
			return nil, 0, ErrGroupedCorrupt
		}
		for j := lo; j < hi; j++ {
			grid, count := table[2*j], int(table[2*j+1])
			if grid > seen || grid >= uint32(grids) || count == 0 || count > rows-at {
				return nil, 0, ErrGroupedCorrupt
			}
			if grid == seen {
				seen++
			}
			gr := group{grid: gs[grid], rows: rowsAt[at : at+count : at+count],
				codes: codes[at*stride : (at+count)*stride : (at+count)*stride], inv: invAt[at : at+count : at+count]}
			if !slices.IsSorted(gr.rows) || gr.rows[0] < 0 {
				return nil, 0, ErrGroupedCorrupt
			}
			gr.maxInv = maxOf(gr.inv)
			g.parts[p] = append(g.parts[p], gr)
			at += count
		}
	}
	if at != rows || int(seen) != grids {
		return nil, 0, ErrGroupedCorrupt
	}
	g.bytes = int64(len(data))
	return g, token, nil
}

// Covers reports whether g's partitions hold exactly the rows lists name
// (each partition's rows, ascending): the rows of the partitions the
// caller holds, numbered as they are.
func (g *Grouped) Covers(lists [][]int32) bool {
	if len(g.parts) != len(lists) {
		return false
	}
	n := 0
	for p, list := range lists {
		at := 0
		for _, gr := range g.parts[p] {
			if at+len(gr.rows) > len(list) || !slices.Equal(gr.rows, list[at:at+len(gr.rows)]) {
				return false
			}
			at += len(gr.rows)
		}
		if at != len(list) {
			return false
		}
		n += at
	}
	return n == g.rows
}

// reader reads the tables of a grouped codes file: views of its bytes
// where the host's order and their alignment allow, else copies.
type reader struct{ b []byte }

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func (r *reader) take(n int) []byte {
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }

func (r *reader) u32s(n int) []uint32 {
	b := r.take(4 * n)
	if n > 0 && littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func (r *reader) i32s(n int) []int32 {
	u := r.u32s(n)
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&u[0])), n)
}

func (r *reader) f32s(n int) []float32 {
	u := r.u32s(n)
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&u[0])), n)
}
