//go:build !js

package core

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"

	"github.com/foliovec/folio/core/internal/scan"
	"github.com/foliovec/folio/core/internal/segfile"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// mapSegment decodes the segment name from a mapping of its file, its
// vectors left in place as the next part of l.head; mapped is false, with
// no error, when the file cannot be mapped or the segment's vectors differ
// in length, among themselves or from the rows before (the caller reads it
// instead, and meets the same error if it is the file's). The file stays
// mapped until no snapshot holds l.pin.
func (sl *segLayout) mapSegment(ctx context.Context, mp FileMapper, name string, arena *segArena, l *loaded) (seg segment, mapped bool, err error) {
	ix := sl.ix
	mf, err := mp.MapFile(ctx, ix.names.path(name))
	if err != nil {
		ix.log.Debug("read a segment instead of mapping it", "folder", ix.folder, "file", name, "err", err)
		return segment{}, false, nil
	}
	b := mf.Bytes()
	if len(b) >= segfile.HeaderLen {
		if d := binary.LittleEndian.Uint32(b[12:]); d == segfile.Mixed || (arena.Dim != -1 && int(d) != arena.Dim) {
			return segment{}, false, mf.Close()
		}
	}
	check, own := sl.mappedCheck(name, mf)
	seg, vecs, err := decodeMappedSegment(b, ix.codec, arena, check)
	if err != nil {
		mf.Close()
		return segment{}, false, fmt.Errorf("segment %q: %w", name, err)
	}
	pin := &mappedFile{name: name, mf: mf}
	runtime.AddCleanup(pin, func(f MappedFile) { f.Close() }, mf)
	set := l.pinned()
	set.files = append(set.files, pin)
	rows := len(seg.items)
	if rows == 0 {
		return seg, true, nil
	}
	d := len(vecs) / rows
	arena.Dim = d
	if d == 0 {
		return seg, true, nil
	}
	part := scan.Part{N: rows, Vals: vecs}
	if ra, ok := mf.(io.ReaderAt); ok && ix.codes.nibbles() {
		part.Fetch = fetchRows(ra, d)
	}
	set.checks = append(set.checks, vectorsCheck(name, rows, b, len(vecs), check.SkipVectors && seg.codes != nil && check.Known == nil))
	l.head = append(l.head, part)
	l.headRows += rows
	l.dim = d
	// The rows' scales, from the file when it has them, else from the
	// vectors; the codes, while every segment so far has them.
	var known []float64
	if check.Known != nil {
		known = own.scales
	}
	l.headScales = append(l.headScales, headScales(seg, ix.codes.nibbles(), known, vecs, d)...)
	if seg.codes != nil && ix.codes.nibbles() && len(l.headCodes) == len(l.head)-1 {
		l.headCodes = append(l.headCodes, seg.codes.Run)
	}
	return seg, true, nil
}

// mappedCheck is what the decoding of the segment name, mapped as mf,
// checks: not its vectors when the index keeps 4-bit codes (the rows a
// query re-ranks are checked as read); the sums this process computed when
// it wrote the segment, if it did (own, then, holds them with the rows'
// scales); with partitions, the codes summed through reads of the file, so
// that their pages stay out of the process's memory (10M×384: 1.9 GB),
// since queries read the codes grouped by partition, from another file or
// a copy.
func (sl *segLayout) mappedCheck(name string, mf MappedFile) (check segfile.Check, own *summedSegment) {
	ix := sl.ix
	check.SkipVectors = ix.codes.nibbles()
	if ra, ok := mf.(io.ReaderAt); ok && check.SkipVectors && ix.parting.target > 0 {
		check.CodesAt = ra
	}
	if own = ix.summed.Load(); own != nil && own.name == name {
		check.Known = &own.sum
	}
	return check, own
}

// vectorsCheck is the check of the vectors of the segment name mapped as
// b, whose vectors are n values of rows rows: a sum of them when unsummed
// (the open read the codes, not the vectors: they are checked before a
// write copies them).
func vectorsCheck(name string, rows int, b []byte, n int, unsummed bool) *vectorCheck {
	vc := &vectorCheck{name: name, rows: rows}
	if unsummed {
		raw := b[segfile.HeaderLen : segfile.HeaderLen+n*4]
		vc.want = binary.LittleEndian.Uint32(b[len(b)-segfile.TrailerLen:])
		vc.sum = func(context.Context) (uint32, error) { return segfile.ParallelCRC(raw), nil }
	}
	return vc
}

// headScales returns the scoring scales of the rows of seg read in place,
// whose vectors (d values each) are vecs: those the segment carries with
// its codes (when nibbles, the index keeps them), else known when it
// holds them all (a compaction of this index just wrote the segment),
// else computed from the vectors.
func headScales(seg segment, nibbles bool, known []float64, vecs []float32, d int) []float64 {
	rows := len(seg.items)
	switch {
	case seg.codes != nil && nibbles:
		return seg.codes.Scales
	case known != nil && len(known) == rows:
		return known
	}
	scales := make([]float64, rows)
	vecmath.ParallelRanges(rows, scan.MinRowsPerWorker, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			scales[i] = vecmath.FastScale(vecs[i*d : (i+1)*d])
		}
	})
	return scales
}

// fetchRows reads rows of d values of a segment's vectors from ra.
func fetchRows(ra io.ReaderAt, d int) func(ctx context.Context, dst []float32, first, count int) error {
	return func(ctx context.Context, dst []float32, first, count int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := segfile.FloatBytes(dst[:count*d])
		_, err := ra.ReadAt(b, int64(segfile.HeaderLen)+int64(first)*int64(d)*4)
		return err
	}
}
