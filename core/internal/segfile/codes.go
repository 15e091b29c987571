package segfile

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/foliovec/folio/core/internal/scan"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// CodesOutliers marks a segment that carries its rows' 4-bit codes: a
// section after the tombstones, at a multiple of 8 bytes into the file:
//
//	size            content
//	8               rows the grid was measured on, uint64
//	rows·8          the rows' scoring scales, float64
//	d·4             the grid's lowest value of each dimension, float32
//	d·4             the grid's step of each dimension, float32
//	rows·⌈d/64⌉·32  the rows' codes, packed (vecmath.PackNibbles)
//	8               the outlier rows listed, uint64
//	m·4             the outlier rows, uint32, increasing, then zero
//	                (m: scan.MaxOutliers(rows))
//	0 or 4          zero, to a multiple of 8
//
// The outliers are the rows far outside the grid (scan.OutlierShare),
// which every query scores exactly. An index that keeps 4-bit codes
// (core.CodesInt4) writes them, so that one that maps the segment reads its
// codes and scales, not its vectors. CodesNibbles is the same section
// without the outlier list, as segments written before it were; it is
// still read.
const (
	CodesNibbles  = 1
	CodesOutliers = 2
)

// CodesLen is the length of the codes section of kind (CodesNibbles,
// CodesOutliers) of rows of d values.
func CodesLen(kind uint32, rows, d int) int64 {
	n := 8 + int64(rows)*8 + int64(d)*8 + int64(rows)*int64(vecmath.NibbleStride(d))
	if kind == CodesOutliers {
		n += (8 + int64(scan.MaxOutliers(rows))*4 + 7) &^ 7
	}
	return n
}

// Codes are the codes a segment carries: its rows' scoring scales, and
// their 4-bit codes as a sealed run (its codes may be a view of a mapped
// file).
type Codes struct {
	Scales []float64
	Run    scan.NibbleRun
}

// codeChunk is the rows coded at a time while a segment's codes are
// written.
const codeChunk = 8192

// encodeCodes writes the codes section of src's rows (of uniform length
// src.Dim > 0) to w, of kind CodesOutliers: a grid measured on them,
// their scales and codes, and the outliers among them.
func encodeCodes(w io.Writer, src Source) error {
	grid := scan.MeasureGrid(src.Dim, src.Rows, src.Vector)
	if err := writeGrid(w, src, grid); err != nil {
		return err
	}
	outliers, err := writeNibbles(w, src, grid)
	if err != nil {
		return err
	}
	// The farthest outside first, as scan.PickOutliers keeps them.
	if m := scan.MaxOutliers(src.Rows); len(outliers) > m {
		slices.SortStableFunc(outliers, func(a, b outlier) int { return cmp.Compare(b.share, a.share) })
		outliers = outliers[:m]
		slices.SortFunc(outliers, func(a, b outlier) int { return cmp.Compare(a.row, b.row) })
	}
	list := binary.LittleEndian.AppendUint64(nil, uint64(len(outliers)))
	for _, o := range outliers {
		list = binary.LittleEndian.AppendUint32(list, uint32(o.row))
	}
	list = append(list, make([]byte, int(CodesLen(CodesOutliers, src.Rows, src.Dim)-CodesLen(CodesNibbles, src.Rows, src.Dim))-len(list))...)
	_, err = w.Write(list)
	return err
}

// writeGrid writes the start of the codes section: the rows the grid was
// measured on, the rows' scales, and the grid.
func writeGrid(w io.Writer, src Source, grid *scan.Grid) error {
	buf := make([]byte, 0, 64<<10)
	flush := func(min int) error {
		if len(buf) < min {
			return nil
		}
		_, err := w.Write(buf)
		buf = buf[:0]
		return err
	}
	buf = binary.LittleEndian.AppendUint64(buf, uint64(grid.From))
	for i := range src.Rows {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(vecmath.FastScale(src.Vector(i))))
		if err := flush(60 << 10); err != nil {
			return err
		}
	}
	for _, col := range [][]float32{grid.Lo, grid.Step} {
		for _, x := range col {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
		if err := flush(60 << 10); err != nil {
			return err
		}
	}
	return flush(1)
}

// outlier is a row far outside the grid, and how far (scan.CodeNibbles).
type outlier struct {
	row   int32
	share float64
}

// writeNibbles writes the rows' packed codes on grid, codeChunk rows at a
// time coded on every core, and returns the rows far outside it.
func writeNibbles(w io.Writer, src Source, grid *scan.Grid) ([]outlier, error) {
	d, rows := src.Dim, src.Rows
	stride := vecmath.NibbleStride(d)
	chunk := make([]byte, codeChunk*stride)
	vecs := make([][]float32, codeChunk)
	shares := make([]float64, codeChunk)
	var outliers []outlier
	for lo := 0; lo < rows; lo += codeChunk {
		n := min(codeChunk, rows-lo)
		for i := range n { // the source is read from one goroutine
			vecs[i] = src.Vector(lo + i)
		}
		vecmath.ParallelRanges(n, 1024, func(a, b int) {
			codes := make([]uint8, d)
			for i := a; i < b; i++ {
				shares[i] = scan.CodeNibbles(chunk[i*stride:(i+1)*stride], codes, vecs[i], grid)
			}
		})
		for i, sh := range shares[:n] {
			if sh > scan.OutlierShare {
				outliers = append(outliers, outlier{int32(lo + i), sh})
			}
		}
		if _, err := w.Write(chunk[:n*stride]); err != nil {
			return nil, err
		}
	}
	return outliers, nil
}

// decodeCodes reads the codes section b of kind of rows of d values:
// the codes stay views of b, the scales, grid and outliers are copied. An
// outlier list that does not list rows of the segment in increasing order
// is ErrCorrupt.
func decodeCodes(b []byte, kind uint32, rows, d int) (*Codes, error) {
	c := &Codes{Scales: make([]float64, rows)}
	from := binary.LittleEndian.Uint64(b)
	b = b[8:]
	inv := make([]float32, rows)
	for i := range c.Scales {
		sc := math.Float64frombits(binary.LittleEndian.Uint64(b[i*8:]))
		c.Scales[i] = sc
		if sc != 0 && !math.IsNaN(sc) && !math.IsInf(sc, 0) {
			inv[i] = float32(1 / sc)
		}
	}
	b = b[rows*8:]
	g := &scan.Grid{Lo: make([]float32, d), Step: make([]float32, d), From: int(min(from, uint64(math.MaxInt32)))}
	for j := range d {
		g.Lo[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[j*4:]))
		g.Step[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[(d+j)*4:]))
	}
	b = b[d*8:]
	n := rows * vecmath.NibbleStride(d)
	c.Run = scan.NibbleRun{Grid: g, Codes: b[:n:n], Inv: inv, Sealed: true}
	if kind != CodesOutliers {
		return c, nil
	}
	b = b[n:]
	count := binary.LittleEndian.Uint64(b)
	if count > uint64(scan.MaxOutliers(rows)) {
		return nil, corrupt(fmt.Sprintf("%d outliers listed of %d rows", count, rows))
	}
	c.Run.Outliers = make([]int32, count)
	for i := range c.Run.Outliers {
		r := binary.LittleEndian.Uint32(b[8+i*4:])
		if r >= uint32(rows) || (i > 0 && int32(r) <= c.Run.Outliers[i-1]) {
			return nil, corrupt("outlier rows out of order")
		}
		c.Run.Outliers[i] = int32(r)
	}
	return c, nil
}
