//go:build !js

package core

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"

	"github.com/foliovec/folio/core/internal/scan"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// mapSegment decodes the segment name from a mapping of its file, its
// vectors left in place as the next part of l.head; mapped is false, with
// no error, when the file cannot be mapped or the segment's vectors differ
// in length, among themselves or from the rows before (the caller reads it
// instead, and meets the same error if it is the file's). The file stays
// mapped until no snapshot holds l.pin.
func (ix *LocalIndex) mapSegment(ctx context.Context, mp FileMapper, name string, arena *segArena, l *loaded) (seg segment, mapped bool, err error) {
	mf, err := mp.MapFile(ctx, ix.path(name))
	if err != nil {
		ix.log.Debug("read a segment instead of mapping it", "folder", ix.folder, "file", name, "err", err)
		return segment{}, false, nil
	}
	b := mf.Bytes()
	if len(b) >= segHeaderLen {
		if d := binary.LittleEndian.Uint32(b[12:]); d == segMixed || (arena.dim != -1 && int(d) != arena.dim) {
			return segment{}, false, mf.Close()
		}
	}
	check := mappedCheck{skipVectors: ix.codes.nibbles()}
	own := ix.summed.Load()
	if own != nil && own.name == name {
		check.known = &own.sum
	}
	seg, vecs, err := decodeMappedSegmentSum(b, ix.codec, arena, check)
	if err != nil {
		mf.Close()
		return segment{}, false, fmt.Errorf("segment %q: %w", name, err)
	}
	pin := &mappedFile{name: name, mf: mf}
	runtime.AddCleanup(pin, func(f MappedFile) { f.Close() }, mf)
	set, _ := l.pin.(*mappedSet)
	if set == nil {
		set = &mappedSet{}
		l.pin = set
	}
	set.files = append(set.files, pin)
	rows := len(seg.items)
	if rows == 0 {
		return seg, true, nil
	}
	d := len(vecs) / rows
	arena.dim = d
	if d == 0 {
		return seg, true, nil
	}
	part := scan.Part{N: rows, Vals: vecs}
	if ra, ok := mf.(io.ReaderAt); ok && ix.codes.nibbles() {
		part.Fetch = fetchRows(ra, d)
	}
	l.head = append(l.head, part)
	l.headRows += rows
	l.dim = d
	// The rows' scales, from the file when it has them, else from the
	// vectors; the codes, while every segment so far has them.
	switch {
	case seg.codes != nil && ix.codes.nibbles():
		l.headScales = append(l.headScales, seg.codes.scales...)
	case check.known != nil && len(own.scales) == rows:
		l.headScales = append(l.headScales, own.scales...)
	default:
		scales := make([]float64, rows)
		vecmath.ParallelRanges(rows, scan.MinRowsPerWorker, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				scales[i] = vecmath.FastScale(vecs[i*d : (i+1)*d])
			}
		})
		l.headScales = append(l.headScales, scales...)
	}
	if seg.codes != nil && ix.codes.nibbles() && len(l.headCodes) == len(l.head)-1 {
		l.headCodes = append(l.headCodes, seg.codes.run)
	}
	return seg, true, nil
}

// fetchRows reads rows of d values of a segment's vectors from ra.
func fetchRows(ra io.ReaderAt, d int) func(ctx context.Context, dst []float32, first, count int) error {
	return func(ctx context.Context, dst []float32, first, count int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := floatBytes(dst[:count*d])
		_, err := ra.ReadAt(b, int64(segHeaderLen)+int64(first)*int64(d)*4)
		return err
	}
}
