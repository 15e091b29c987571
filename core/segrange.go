package core

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"runtime"

	"github.com/foliovec/folio/core/internal/scan"
	"github.com/foliovec/folio/core/internal/segfile"
)

// Segments read in parts, through a FileRangeReader: natively and in a
// browser (an index served over HTTP).

// rangeSegment decodes the segment name from parts of its file read
// through rf, its vectors left in the file as the next part of l.head,
// read when a query re-ranks them (a fetch-only part, scan.Part). ranged
// is false, with no error, when the segment carries no 4-bit codes or its
// vectors differ in length from the rows before (the caller reads it
// whole). The file stays open until no snapshot holds l.pin.
func (sl *segLayout) rangeSegment(ctx context.Context, rr FileRangeReader, name string, arena *segArena, l *loaded) (seg segment, ranged bool, err error) {
	ix := sl.ix
	rf, err := rr.OpenFileRange(ctx, ix.names.path(name))
	if err != nil {
		return segment{}, false, fmt.Errorf("segment %q: %w", name, err)
	}
	keep := false
	defer func() {
		if !keep {
			rf.Close()
		}
	}()
	size := rf.Size()
	hdr := make([]byte, segfile.HeaderLen)
	if size < segfile.HeaderLen {
		return segment{}, false, nil // the whole read says what is wrong
	}
	if err := rf.ReadRange(ctx, hdr, 0); err != nil {
		return segment{}, false, fmt.Errorf("segment %q: %w", name, err)
	}
	h, err := segfile.ParseHeader(hdr, size)
	if err != nil || h.Codes == 0 || h.Dim == segfile.Mixed || h.Rows == 0 || (arena.Dim != -1 && int(h.Dim) != arena.Dim) {
		return segment{}, false, nil
	}
	d := int(h.Dim)
	vecEnd, codesAt, codesEnd := h.Layout()
	if codesEnd > size {
		return segment{}, false, nil
	}
	ints, codes, tail, err := readRest(ctx, rf, vecEnd, codesAt, codesEnd, size)
	if err != nil {
		return segment{}, false, fmt.Errorf("segment %q: %w", name, err)
	}
	seg, err = decodeSegmentRest(hdr, ints, codes, tail, h, ix.codec, arena)
	if err != nil {
		return segment{}, false, fmt.Errorf("segment %q: %w", name, err)
	}
	keep = true
	file := &rangedFile{name: name, rf: rf}
	runtime.AddCleanup(file, func(rf RangeFile) { rf.Close() }, rf)
	set := l.pinned()
	set.ranged = append(set.ranged, file)
	// The vectors were not read: they are checked before a write copies
	// them, a read of the file's vectors.
	set.checks = append(set.checks, &vectorCheck{
		name: name, rows: h.Rows,
		want: binary.LittleEndian.Uint32(tail[len(tail)-segfile.TrailerLen:]),
		sum:  func(ctx context.Context) (uint32, error) { return file.sumRange(ctx, segfile.HeaderLen, vecEnd) },
	})
	arena.Dim = d
	l.head = append(l.head, file.part(h.Rows, d))
	l.headRows += h.Rows
	l.dim = d
	l.headScales = append(l.headScales, seg.codes.Scales...)
	if len(l.headCodes) == len(l.head)-1 {
		l.headCodes = append(l.headCodes, seg.codes.Run)
	}
	return seg, true, nil
}

// readRest reads the parts of a segment file after its vectors (which
// end at vecEnd): the ints, the codes (codesAt to codesEnd) and the tail,
// to size, with one readRanges: the codes are kept in memory of their
// own, the rest is garbage once decoded.
func readRest(ctx context.Context, rf RangeFile, vecEnd, codesAt, codesEnd, size int64) (ints, codes, tail []byte, err error) {
	ints, codes, tail = make([]byte, codesAt-vecEnd), make([]byte, codesEnd-codesAt), make([]byte, size-codesEnd)
	if err := readRanges(ctx, rf, []FilePart{{ints, vecEnd}, {codes, codesAt}, {tail, codesEnd}}); err != nil {
		return nil, nil, nil, err
	}
	return ints, codes, tail, nil
}

// sumRange is the CRC-32C of the file's bytes lo to hi-1, read a part at
// a time.
func (f *rangedFile) sumRange(ctx context.Context, lo, hi int64) (uint32, error) {
	buf := make([]byte, min(hi-lo, 8<<20))
	var sum uint32
	for at := lo; at < hi; at += int64(len(buf)) {
		part := buf[:min(int64(len(buf)), hi-at)]
		if err := f.rf.ReadRange(ctx, part, at); err != nil {
			return 0, err
		}
		sum = crc32.Update(sum, segfile.Table, part)
	}
	return sum, nil
}

// part is the file's rows rows of d values as a fetch-only part: read a
// run at a time, or all of a re-rank's runs with one call where the file
// batches its reads.
func (f *rangedFile) part(rows, d int) scan.Part {
	p := scan.Part{N: rows, Fetch: f.fetchRows(d)}
	if batchesRanges(f.rf) {
		p.FetchRuns = f.fetchRuns(d)
	}
	return p
}

// fetchRuns reads runs of rows of d values of the segment's vectors with
// one call of readRanges.
func (f *rangedFile) fetchRuns(d int) func(ctx context.Context, runs []scan.Run) error {
	return func(ctx context.Context, runs []scan.Run) error {
		parts := make([]FilePart, len(runs))
		for i, rn := range runs {
			parts[i] = FilePart{P: segfile.FloatBytes(rn.Dst[:rn.Count*d]), Off: int64(segfile.HeaderLen) + int64(rn.First)*int64(d)*4}
		}
		if err := readRanges(ctx, f.rf, parts); err != nil {
			return fmt.Errorf("segment %q: read %d runs of rows: %w", f.name, len(runs), err)
		}
		return nil
	}
}

// fetchRows reads rows of d values of the segment's vectors.
func (f *rangedFile) fetchRows(d int) func(ctx context.Context, dst []float32, first, count int) error {
	return func(ctx context.Context, dst []float32, first, count int) error {
		err := f.rf.ReadRange(ctx, segfile.FloatBytes(dst[:count*d]), int64(segfile.HeaderLen)+int64(first)*int64(d)*4)
		if err != nil {
			return fmt.Errorf("segment %q: read rows %d to %d: %w", f.name, first, first+count-1, err)
		}
		return nil
	}
}

// pinned returns the set of files l's rows are read from in place,
// making it l.pin when there is none yet.
func (l *loaded) pinned() *mappedSet {
	set, _ := l.pin.(*mappedSet)
	if set == nil {
		set = &mappedSet{}
		l.pin = set
	}
	return set
}
