// Package segfile is the segmented layout's file formats: the manifest,
// which names an index's segments, and the segment files, which hold rows
// of vectors, their serials, tombstones, optional 4-bit codes and the
// rows' metadata as an opaque blob. It knows nothing of items or codecs:
// the index encodes and decodes that blob through its codec.
//
// A segment ("<index file>.<uuid>.seg") is immutable once written:
//
//	offset  size            content
//	0       8               "FOLIOSEG"
//	8       4               format (2)
//	12      4               vector length d (0xFFFFFFFF: lengths differ)
//	16      8               rows
//	24      8               tombstones
//	32      4               codes: 0 none, 2 4-bit (CodesOutliers;
//	                        1, CodesNibbles, is still read)
//	36      28              zero
//	64      rows·d·4        vectors, float32 little-endian, row after row
//	                        (lengths differ: rows·4 uint32 lengths first)
//	…       rows·4          the rows' serials, uint32, increasing
//	…       tombstones·4    serials of items of earlier segments that are
//	                        deleted, uint32, increasing
//	…       0 or 4          zero, to a multiple of 8, when there are codes
//	…       …               the codes (see CodesOutliers)
//	…       …               the rows' ids, metadata, norms and side-car
//	                        names, as an index file of the index's codec
//	                        whose vectors are empty
//	end−16  4               CRC-32C of the vectors (from offset 64 to the
//	                        serials)
//	end−12  4               CRC-32C of every other byte before it
//	end−8   8               "FOLIOEND"
//
// The vectors start 64 bytes into the file, so a mapping of the file sees
// them aligned. Their own checksum lets a reader that maps the file and
// keeps codes in memory check everything else without reading them.
// Format 1 is format 2 without codes, with one checksum of everything
// before a 12-byte trailer; it is still read.
package segfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"unsafe"

	"github.com/foliovec/folio/core/internal/errs"
)

const (
	// Ext ends a segment file's name.
	Ext = ".seg"
	// Magic begins a segment file; End ends it.
	Magic = "FOLIOSEG"
	End   = "FOLIOEND"
	// HeaderLen is the header's length: the vectors start there.
	HeaderLen = 64
	// TrailerLen is the trailer's length in format 2: the checksum of the
	// vectors starts there, counted from the end.
	TrailerLen = 16
	// Mixed is the header's vector length when the rows' lengths differ.
	Mixed = math.MaxUint32

	format         = 2
	format1Trailer = 12
)

// LittleEndian reports whether float32 memory is already in the file's
// byte order: only then are vectors read in place.
var LittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// FloatBytes is v's memory as bytes, little-endian machines only.
func FloatBytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*4)
}

// corrupt is the error of a damaged segment.
func corrupt(what string) error { return fmt.Errorf("segment: %s: %w", what, errs.ErrCorrupt) }

// Source is what a segment file is written from, row by row.
type Source struct {
	Rows int
	Dim  int // -1 when the rows' vector lengths differ
	// Vector is row i's vector.
	Vector func(i int) []float32
	// Serial is row i's serial, increasing.
	Serial func(i int) uint32
	// Tombs are serials of earlier segments' rows that are deleted.
	Tombs []uint32
	// Codes, when set, writes the rows' 4-bit codes (CodesOutliers) into a
	// segment of uniform vector length.
	Codes bool
	// Err, when set, reports a failure to read a row's vector that a call
	// of Vector met: the segment written is not to be used.
	Err func() error
	// Meta writes the rows' metadata blob.
	Meta func(w io.Writer) error
}

// Sums are a segment's checksums: of its vectors, and of every other byte
// before its trailer (format 1: Vecs is 0, Rest sums every byte).
type Sums struct{ Vecs, Rest uint32 }

// crcWriter passes writes on and sums them, in sum (which may be
// switched between writes), counting the bytes.
type crcWriter struct {
	w   io.Writer
	sum hash.Hash32
	n   int64
}

func (c *crcWriter) Write(p []byte) (int, error) {
	c.sum.Write(p)
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Encode writes src as a segment file to w and returns the checksums it
// wrote. Nothing is written when src.Err reports a failure first.
func Encode(w io.Writer, src Source) (Sums, error) {
	if src.Err != nil {
		if err := src.Err(); err != nil {
			return Sums{}, err // the rows cannot be read: nothing is written
		}
	}
	rest, vecs := crc32.New(Table), crc32.New(Table)
	cw := &crcWriter{w: w, sum: rest}
	codes := src.Codes && src.Dim > 0 && src.Rows > 0
	if _, err := cw.Write(encodeHeader(src, codes)); err != nil {
		return Sums{}, err
	}
	cw.sum = vecs
	if err := writeVectors(cw, src); err != nil {
		return Sums{}, err
	}
	cw.sum = rest
	if err := writeInts(cw, src, codes); err != nil {
		return Sums{}, err
	}
	if codes {
		if err := encodeCodes(cw, src); err != nil {
			return Sums{}, err
		}
	}
	if src.Err != nil {
		if err := src.Err(); err != nil {
			return Sums{}, err
		}
	}
	bw := bufio.NewWriterSize(cw, 64<<10)
	if err := src.Meta(bw); err != nil {
		return Sums{}, err
	}
	if err := bw.Flush(); err != nil {
		return Sums{}, err
	}
	sums := Sums{Vecs: vecs.Sum32(), Rest: rest.Sum32()}
	trailer := binary.LittleEndian.AppendUint32(nil, sums.Vecs)
	trailer = binary.LittleEndian.AppendUint32(trailer, sums.Rest)
	_, err := w.Write(append(trailer, End...))
	return sums, err
}

// encodeHeader is src's header; codes says whether codes follow.
func encodeHeader(src Source, codes bool) []byte {
	hdr := make([]byte, HeaderLen)
	copy(hdr, Magic)
	binary.LittleEndian.PutUint32(hdr[8:], format)
	dim := uint32(Mixed)
	if src.Dim >= 0 {
		dim = uint32(src.Dim)
	}
	binary.LittleEndian.PutUint32(hdr[12:], dim)
	binary.LittleEndian.PutUint64(hdr[16:], uint64(src.Rows))
	binary.LittleEndian.PutUint64(hdr[24:], uint64(len(src.Tombs)))
	if codes {
		binary.LittleEndian.PutUint32(hdr[32:], CodesOutliers)
	}
	return hdr
}

// writeVectors writes the rows' vectors (lengths differ: their lengths
// first), little-endian.
func writeVectors(w io.Writer, src Source) error {
	var buf []byte
	if src.Dim < 0 {
		for i := range src.Rows {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(len(src.Vector(i))))
		}
	}
	for i := range src.Rows {
		v := src.Vector(i)
		if LittleEndian {
			if len(buf) > 0 {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
			if _, err := w.Write(FloatBytes(v)); err != nil {
				return err
			}
			continue
		}
		for _, f := range v {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
		}
	}
	if len(buf) > 0 {
		_, err := w.Write(buf)
		return err
	}
	return nil
}

// writeInts writes the rows' serials and the tombstones, then, when codes
// follow, the padding to a multiple of 8 bytes into the file.
func writeInts(cw *crcWriter, src Source, codes bool) error {
	var buf []byte
	for i := range src.Rows {
		buf = binary.LittleEndian.AppendUint32(buf, src.Serial(i))
	}
	for _, t := range src.Tombs {
		buf = binary.LittleEndian.AppendUint32(buf, t)
	}
	if codes && (cw.n+int64(len(buf)))%8 != 0 {
		buf = append(buf, 0, 0, 0, 0)
	}
	_, err := cw.Write(buf)
	return err
}

// Segment is a decoded segment file, less its metadata, which the
// decoders hand to a MetaFunc.
type Segment struct {
	Header Header
	// Vecs are the rows' vectors, one after another: views of the arena
	// (Decode) or of the mapped bytes (DecodeMapped); nil when the vectors
	// were left in the file (DecodeRest).
	Vecs []float32
	// Lengths are the rows' vector lengths when they differ (Header.Dim
	// is Mixed), else nil.
	Lengths []int
	Serials []uint32
	Tombs   []uint32
	Codes   *Codes // the rows' codes, when the segment carries them
	// Unread is set when the vectors were left in the file.
	Unread bool
}

// Rows is the segment's row count.
func (s *Segment) Rows() int { return len(s.Serials) }

// EachVector calls f with each row's vector, a view of Vecs (nil when
// Unread).
func (s *Segment) EachVector(f func(i int, v []float32)) {
	off := 0
	for i := range s.Serials {
		n := int(s.Header.Dim)
		if s.Lengths != nil {
			n = s.Lengths[i]
		}
		var v []float32
		if !s.Unread {
			v = s.Vecs[off : off+n : off+n]
		}
		f(i, v)
		off += n
	}
}

// MetaFunc decodes the rows' metadata blob of seg, whose other parts are
// decoded; an error fails the decode.
type MetaFunc func(seg *Segment, meta []byte) error

// Arena is where Decode places vectors: it appends rows of length Dim and
// hands out views of them.
type Arena struct {
	Dim  int // -1 until the first uniform segment; -2 when lengths differ
	Data []float32
	// Reserve, when set, is the capacity in floats to give the arena once
	// the vector length is known, for a first segment of rows rows.
	Reserve func(dim, rows int) int
}

// Header is what a segment's header says.
type Header struct {
	Format      int
	Dim         uint32 // Mixed when the rows' lengths differ
	Rows, Tombs int
	Codes       uint32 // CodesOutliers, CodesNibbles, or 0
}

// TailLen is the length of the segment's trailer.
func (h Header) TailLen() int {
	if h.Format == 1 {
		return format1Trailer
	}
	return TrailerLen
}

// CodesLen is the length of the codes section, 0 when there is none.
func (h Header) CodesLen() int64 {
	if h.Codes == 0 {
		return 0
	}
	return CodesLen(h.Codes, h.Rows, int(h.Dim))
}

// Layout is where the parts of a segment of format 2 with 4-bit codes lie
// after its vectors: its serials and tombstones (with the padding before
// the codes) from vecEnd, its codes from codesAt, and from codesEnd its
// metadata and trailer.
func (h Header) Layout() (vecEnd, codesAt, codesEnd int64) {
	vecEnd = int64(HeaderLen) + int64(h.Rows)*int64(h.Dim)*4
	codesAt = (vecEnd + int64(h.Rows+h.Tombs)*4 + 7) &^ 7
	return vecEnd, codesAt, codesAt + h.CodesLen()
}

// ParseHeader reads a segment's header, checking its counts against the
// file's size (when known, else -1).
func ParseHeader(hdr []byte, size int64) (Header, error) {
	if len(hdr) < HeaderLen {
		return Header{}, corrupt("truncated")
	}
	f := binary.LittleEndian.Uint32(hdr[8:])
	if string(hdr[:8]) != Magic || (f != 1 && f != format) {
		return Header{}, corrupt("not a segment of format 1 or 2")
	}
	dim := binary.LittleEndian.Uint32(hdr[12:])
	rows64 := binary.LittleEndian.Uint64(hdr[16:])
	tombs64 := binary.LittleEndian.Uint64(hdr[24:])
	if size >= 0 && (rows64 > uint64(size)/4 || tombs64 > uint64(size)/4 || (dim != Mixed && rows64*uint64(dim) > uint64(size)/4)) {
		return Header{}, corrupt("counts larger than the file")
	}
	h := Header{Format: int(f), Dim: dim, Rows: int(rows64), Tombs: int(tombs64)}
	if f > 1 {
		h.Codes = binary.LittleEndian.Uint32(hdr[32:])
	}
	switch {
	case h.Codes != 0 && ((h.Codes != CodesNibbles && h.Codes != CodesOutliers) || dim == Mixed || dim == 0 || h.Rows == 0):
		return Header{}, corrupt(fmt.Sprintf("codes of kind %d", h.Codes))
	case h.Codes != 0 && size >= 0 && h.CodesLen() > size:
		return Header{}, corrupt("codes larger than the file")
	}
	return h, nil
}

// parseInts reads the rows' serials and the tombstones.
func parseInts(seg *Segment, ints []byte, rows, ntombs int) error {
	seg.Serials = make([]uint32, rows)
	for i := range seg.Serials {
		seg.Serials[i] = binary.LittleEndian.Uint32(ints[i*4:])
		if i > 0 && seg.Serials[i] <= seg.Serials[i-1] {
			return corrupt("serials not increasing")
		}
	}
	seg.Tombs = make([]uint32, ntombs)
	for i := range seg.Tombs {
		seg.Tombs[i] = binary.LittleEndian.Uint32(ints[(rows+i)*4:])
	}
	return nil
}

// sumReader passes reads on and sums them, in sum (which may be switched
// between reads), counting the bytes.
type sumReader struct {
	r   io.Reader
	sum hash.Hash32
	n   int64
}

func (s *sumReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.sum.Write(p[:n])
	s.n += int64(n)
	return n, err
}

// Decode reads a segment file of size bytes (-1: unknown) from r,
// appending its vectors to arena when they have the arena's length (else
// to memory of their own), and hands its metadata to meta once every
// checksum matched. A damaged file is ErrCorrupt.
func Decode(r io.Reader, size int64, arena *Arena, meta MetaFunc) (Segment, error) {
	rest, vsum := crc32.New(Table), crc32.New(Table)
	tr := &sumReader{r: r, sum: rest}
	hdr := make([]byte, HeaderLen)
	if _, err := io.ReadFull(tr, hdr); err != nil {
		return Segment{}, readErr(err)
	}
	h, err := ParseHeader(hdr, size)
	if err != nil {
		return Segment{}, err
	}
	if h.Format > 1 {
		tr.sum = vsum
	}
	seg := Segment{Header: h}
	if err := readVectors(tr, size, arena, &seg); err != nil {
		return Segment{}, err
	}
	tr.sum = rest
	ints := make([]byte, (h.Rows+h.Tombs)*4)
	if _, err := io.ReadFull(tr, ints); err != nil {
		return Segment{}, readErr(err)
	}
	if err := parseInts(&seg, ints, h.Rows, h.Tombs); err != nil {
		return Segment{}, err
	}
	if n := h.CodesLen(); n > 0 {
		if seg.Codes, err = readCodes(tr, h, n); err != nil {
			return Segment{}, err
		}
	}
	all, err := io.ReadAll(r)
	if err != nil {
		return Segment{}, readErr(err)
	}
	blob, err := checkTrailer(all, h, vsum.Sum32(), rest)
	if err != nil {
		return Segment{}, err
	}
	if err := meta(&seg, blob); err != nil {
		return Segment{}, err
	}
	return seg, nil
}

// readVectors reads seg's vectors (and their lengths when they differ)
// from r into arena when they have its length, else into memory of their
// own.
func readVectors(r io.Reader, size int64, arena *Arena, seg *Segment) error {
	dim, rows := seg.Header.Dim, seg.Header.Rows
	total := rows * int(dim)
	if dim == Mixed {
		raw := make([]byte, rows*4)
		if _, err := io.ReadFull(r, raw); err != nil {
			return readErr(err)
		}
		seg.Lengths = make([]int, rows)
		var sum uint64
		for i := range seg.Lengths {
			seg.Lengths[i] = int(binary.LittleEndian.Uint32(raw[i*4:]))
			sum += uint64(seg.Lengths[i])
			if size >= 0 && sum > uint64(size)/4 {
				return corrupt("vectors longer than the file")
			}
		}
		total = int(sum)
	}
	uniform := dim != Mixed && rows > 0
	if uniform && arena.Dim == -1 {
		arena.Dim = int(dim)
	}
	if uniform && arena.Dim == int(dim) {
		start := len(arena.Data)
		if arena.Data == nil && arena.Reserve != nil {
			arena.Data = make([]float32, 0, max(total, arena.Reserve(int(dim), rows)))
		}
		arena.Data = slices.Grow(arena.Data, total)[:start+total]
		seg.Vecs = arena.Data[start:]
	} else {
		if rows > 0 {
			arena.Dim = -2
		}
		seg.Vecs = make([]float32, total)
	}
	return readErr(readFloats(r, seg.Vecs))
}

// readCodes reads the codes section, n bytes after the padding that puts
// it at a multiple of 8 into the file.
func readCodes(tr *sumReader, h Header, n int64) (*Codes, error) {
	pad := make([]byte, int((8-tr.n%8)%8))
	raw := make([]byte, n)
	if _, err := io.ReadFull(tr, pad); err != nil {
		return nil, readErr(err)
	}
	if _, err := io.ReadFull(tr, raw); err != nil {
		return nil, readErr(err)
	}
	return decodeCodes(raw, h.Codes, h.Rows, int(h.Dim))
}

// checkTrailer checks the end of a segment, all (the metadata and the
// trailer), against the checksums summed so far: vecs, of the vectors, and
// rest, of every other byte before all. It returns the metadata.
func checkTrailer(all []byte, h Header, vecs uint32, rest hash.Hash32) ([]byte, error) {
	tl := h.TailLen()
	if len(all) < tl || string(all[len(all)-8:]) != End {
		return nil, corrupt("truncated")
	}
	blob := all[:len(all)-tl]
	rest.Write(blob)
	trailer := all[len(blob):]
	if h.Format > 1 {
		if binary.LittleEndian.Uint32(trailer) != vecs {
			return nil, corrupt("checksum of the vectors mismatch")
		}
		trailer = trailer[4:]
	}
	if binary.LittleEndian.Uint32(trailer) != rest.Sum32() {
		return nil, corrupt("checksum mismatch")
	}
	return blob, nil
}

// Check says what DecodeMapped checks.
type Check struct {
	// Known, when set, holds the checksums of a segment this process wrote
	// and summed as it wrote it: the trailer is compared with them instead
	// of summing every byte again (which would also bring the whole file
	// into the process's memory).
	Known *Sums
	// SkipVectors leaves the checksum of the vectors of a segment that
	// carries codes unchecked: the caller reads its codes, and only the
	// few rows a query re-ranks from the vectors.
	SkipVectors bool
	// CodesAt, when set, reads the file's bytes as the mapping holds them:
	// the checksum covering the codes reads them through it rather than
	// through the mapping, so that their pages stay out of the process's
	// memory until a query reads the codes in place (a caller that reads
	// the codes from another copy, grouped by partition, never does).
	CodesAt io.ReaderAt
}

// DecodeMapped decodes a segment of uniform vector length from its mapped
// bytes b, as Decode does, except that the vectors stay in b (Vecs is a
// view of them, little-endian machines only) and the checksums are
// verified, as check says, while meta decodes the metadata. A segment of
// mixed lengths is ErrCorrupt here: the caller reads it with Decode.
func DecodeMapped(b []byte, check Check, meta MetaFunc) (Segment, error) {
	if len(b) < HeaderLen+format1Trailer {
		return Segment{}, corrupt("truncated")
	}
	h, err := ParseHeader(b[:HeaderLen], int64(len(b)))
	if err != nil {
		return Segment{}, err
	}
	if h.Dim == Mixed {
		return Segment{}, corrupt("mixed vector lengths")
	}
	d, rows, ntombs, tl := int(h.Dim), h.Rows, h.Tombs, h.TailLen()
	vecEnd := HeaderLen + rows*d*4
	intsEnd := vecEnd + (rows+ntombs)*4
	codesAt, codesEnd := intsEnd, int64(intsEnd)
	if n := h.CodesLen(); n > 0 {
		codesAt = (intsEnd + 7) &^ 7
		codesEnd = int64(codesAt) + n
	}
	if codesEnd+int64(tl) > int64(len(b)) {
		return Segment{}, corrupt("truncated")
	}
	tail := b[len(b)-tl:]
	if string(tail[len(tail)-8:]) != End {
		return Segment{}, corrupt("truncated")
	}
	// The checksums read every byte they cover; they run beside the
	// decoding.
	sumOK := mappedSums(b, h, vecEnd, [2]int64{int64(codesAt), codesEnd}, check)
	seg := Segment{Header: h}
	if rows*d > 0 {
		seg.Vecs = unsafe.Slice((*float32)(unsafe.Pointer(&b[HeaderLen])), rows*d)
	}
	err = parseInts(&seg, b[vecEnd:intsEnd], rows, ntombs)
	if err == nil && h.Codes != 0 {
		seg.Codes, err = decodeCodes(b[codesAt:codesEnd], h.Codes, rows, d)
	}
	if err == nil {
		err = meta(&seg, b[codesEnd:len(b)-tl])
	}
	if !<-sumOK {
		return Segment{}, corrupt("checksum mismatch")
	}
	if err != nil {
		return Segment{}, err
	}
	return seg, nil
}

// mappedSums checks the checksums of the mapped segment b, of header h,
// whose vectors end at vecEnd and codes lie at codes[0]:codes[1], as check
// says: the answer comes on the channel, from a goroutine of its own when
// every byte is summed.
func mappedSums(b []byte, h Header, vecEnd int, codes [2]int64, check Check) <-chan bool {
	tail := b[len(b)-h.TailLen():]
	sumOK := make(chan bool, 1)
	switch {
	case check.Known != nil && h.Format > 1:
		sumOK <- *check.Known == Sums{Vecs: binary.LittleEndian.Uint32(tail), Rest: binary.LittleEndian.Uint32(tail[4:])}
	case check.Known != nil:
		sumOK <- *check.Known == Sums{Rest: binary.LittleEndian.Uint32(tail)}
	case h.Format == 1:
		go func() { sumOK <- ParallelCRC(b[:len(b)-len(tail)]) == binary.LittleEndian.Uint32(tail) }()
	default:
		skip := check.SkipVectors && h.Codes != 0
		go func() {
			body := b[vecEnd : len(b)-len(tail)]
			var sum uint32
			ok := true
			if check.CodesAt != nil && codes[1] > codes[0] {
				sum, ok = bodySum(b, vecEnd, codes, len(b)-len(tail), check.CodesAt)
			} else {
				sum = ParallelCRC(body)
			}
			rest := CRCCombine(crc32.Checksum(b[:HeaderLen], Table), sum, int64(len(body)))
			ok = ok && rest == binary.LittleEndian.Uint32(tail[4:])
			if ok && !skip {
				ok = ParallelCRC(b[HeaderLen:vecEnd]) == binary.LittleEndian.Uint32(tail)
			}
			sumOK <- ok
		}()
	}
	return sumOK
}

// bodySum is the CRC-32C of b[from:to], with the codes' bytes
// codes[0]:codes[1] read through r rather than from b; ok is false when
// they cannot be read.
func bodySum(b []byte, from int, codes [2]int64, to int, r io.ReaderAt) (sum uint32, ok bool) {
	mid, err := ParallelCRCAt(r, codes[0], codes[1]-codes[0])
	if err != nil {
		return 0, false
	}
	sum = CRCCombine(crc32.Checksum(b[from:codes[0]], Table), mid, codes[1]-codes[0])
	return CRCCombine(sum, crc32.Checksum(b[codes[1]:to], Table), int64(to)-codes[1]), true
}

// DecodeRest decodes a segment of format 2 with 4-bit codes from its
// header and the parts after its vectors (Header.Layout: ints, codes, and
// tail, which ends the file), the vectors not read (Unread): only the
// checksum of the header and those parts is verified. The codes stay
// views of codes.
func DecodeRest(hdr, ints, codes, tail []byte, h Header, meta MetaFunc) (Segment, error) {
	d, rows, tl := int(h.Dim), h.Rows, h.TailLen()
	if h.Format < 2 || h.Codes == 0 || int64(len(codes)) != h.CodesLen() || len(ints) < (rows+h.Tombs)*4 || len(tail) < tl {
		return Segment{}, corrupt("truncated")
	}
	trailer := tail[len(tail)-tl:]
	if string(trailer[len(trailer)-8:]) != End {
		return Segment{}, corrupt("truncated")
	}
	blob := tail[:len(tail)-tl]
	sum := crc32.Checksum(hdr, Table)
	for _, part := range [][]byte{ints, codes, blob} {
		sum = CRCCombine(sum, ParallelCRC(part), int64(len(part)))
	}
	if sum != binary.LittleEndian.Uint32(trailer[4:]) {
		return Segment{}, corrupt("checksum mismatch")
	}
	seg := Segment{Header: h, Unread: true}
	if err := parseInts(&seg, ints, rows, h.Tombs); err != nil {
		return Segment{}, err
	}
	var err error
	if seg.Codes, err = decodeCodes(codes, h.Codes, rows, d); err != nil {
		return Segment{}, err
	}
	if err := meta(&seg, blob); err != nil {
		return Segment{}, err
	}
	return seg, nil
}

// readErr makes a short read of a segment corrupt; other read errors pass.
func readErr(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return corrupt("truncated")
	}
	return err
}

// readFloats fills v with little-endian float32s from r.
func readFloats(r io.Reader, v []float32) error {
	if LittleEndian {
		_, err := io.ReadFull(r, FloatBytes(v))
		return err
	}
	buf := make([]byte, 64<<10)
	for len(v) > 0 {
		n := min(len(v), len(buf)/4)
		if _, err := io.ReadFull(r, buf[:n*4]); err != nil {
			return err
		}
		for i := range n {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[i*4:]))
		}
		v = v[n:]
	}
	return nil
}
