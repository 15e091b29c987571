package core

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"unsafe"
)

// The segmented layout's files.
//
// The manifest ("<index file>.segments", JSON) names the segments in the
// order their items are stored, and says which serial the next item gets.
// Each segment ("<index file>.<uuid>.seg") is immutable once written:
//
//	offset  size            content
//	0       8               "FOLIOSEG"
//	8       4               format (2)
//	12      4               vector length d (0xFFFFFFFF: lengths differ)
//	16      8               rows
//	24      8               tombstones
//	32      4               codes: 0 none, 2 4-bit (segCodesOutliers;
//	                        1, segCodesNibbles, is still read)
//	36      28              zero
//	64      rows·d·4        vectors, float32 little-endian, row after row
//	                        (lengths differ: rows·4 uint32 lengths first)
//	…       rows·4          the rows' serials, uint32, increasing
//	…       tombstones·4    serials of items of earlier segments that are
//	                        deleted, uint32, increasing
//	…       0 or 4          zero, to a multiple of 8, when there are codes
//	…       …               the codes (see encodeSegCodes)
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

const (
	segMagic       = "FOLIOSEG"
	segEnd         = "FOLIOEND"
	segFormat      = 2
	segHeaderLen   = 64
	segTrailerLen  = 16
	seg1TrailerLen = 12 // format 1's
	segMixed       = math.MaxUint32
	segExt         = ".seg"
	manifestExt    = ".segments"
	manifestFormat = "folio-segments"
	// manifestVersion is the manifest's format version.
	manifestVersion = 1
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// manifest is the segmented layout's manifest file.
type manifest struct {
	Format        string `json:"format"`
	FormatVersion int    `json:"formatVersion"`
	// Version and Indexed are the index's version and metadata config
	// (Indexed nil: no config; non-nil empty: "indexed": []).
	Version int       `json:"version"`
	Indexed *[]string `json:"indexed,omitempty"`
	// NextSerial is the serial the next stored item gets.
	NextSerial uint32         `json:"nextSerial"`
	Segments   []segmentEntry `json:"segments"`
}

// segmentEntry is a segment as the manifest names it.
type segmentEntry struct {
	Name string `json:"name"`
	// First is the least serial the segment may hold: every row of it has
	// a serial at least First and less than the next segment's First.
	First      uint32 `json:"first"`
	Rows       int    `json:"rows"`
	Tombstones int    `json:"tombstones"`
}

func newManifest(version int, config MetadataConfig) manifest {
	m := manifest{Format: manifestFormat, FormatVersion: manifestVersion, Version: version, Segments: []segmentEntry{}}
	if config.Indexed != nil {
		idx := slices.Clone(config.Indexed)
		m.Indexed = &idx
	}
	return m
}

func (m *manifest) config() MetadataConfig {
	if m.Indexed == nil {
		return MetadataConfig{}
	}
	return MetadataConfig{Indexed: slices.Clone(*m.Indexed)}
}

func (m *manifest) rows() int {
	n := 0
	for _, e := range m.Segments {
		n += e.Rows
	}
	return n
}

func (m *manifest) names() []string {
	out := make([]string, len(m.Segments))
	for i, e := range m.Segments {
		out[i] = e.Name
	}
	return out
}

func encodeManifest(m manifest) ([]byte, error) {
	return json.MarshalIndent(m, "", "  ")
}

func decodeManifest(raw []byte) (manifest, error) {
	var m manifest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return manifest{}, fmt.Errorf("segments manifest: %v: %w", err, ErrCorrupt)
	}
	if m.Format != manifestFormat || m.FormatVersion != manifestVersion {
		return manifest{}, fmt.Errorf("segments manifest: format %q %d, want %q %d: %w", m.Format, m.FormatVersion, manifestFormat, manifestVersion, ErrCorrupt)
	}
	var next uint32
	for i, e := range m.Segments {
		if e.Rows < 0 || e.Tombstones < 0 || (i > 0 && e.First < next) || e.First > m.NextSerial {
			return manifest{}, fmt.Errorf("segments manifest: segment %q out of order: %w", e.Name, ErrCorrupt)
		}
		next = e.First
	}
	// Each segment's rows have serials from its First up to the next
	// segment's, each serial once, and its tombstones name serials of the
	// segments before it: counts past those are no index's. (They are
	// checked against the segments' own headers as those are read.)
	for i, e := range m.Segments {
		end := m.NextSerial
		if i+1 < len(m.Segments) {
			end = m.Segments[i+1].First
		}
		if uint64(e.Rows) > uint64(end-e.First) || uint64(e.Tombstones) > uint64(e.First) {
			return manifest{}, fmt.Errorf("segments manifest: segment %q: %d rows and %d tombstones for serials %d to %d: %w", e.Name, e.Rows, e.Tombstones, e.First, end, ErrCorrupt)
		}
	}
	return m, nil
}

// segmentSource is what a segment file holds, read row by row.
type segmentSource struct {
	rows int
	dim  int // -1 when the rows' vector lengths differ
	row  func(i int) IndexItem
	// meta, when set, is row without the vector (which may cost a read):
	// the metadata is written from it.
	meta func(i int) IndexItem
	// err, when set, reports a failure to read a row's vector that row
	// met (its vector then zero): the segment written is not to be used.
	err   func() error
	ser   func(i int) uint32
	tombs []uint32
	// codes, when set, writes the rows' 4-bit codes (segCodesOutliers)
	// into a segment of uniform vector length.
	codes bool
}

// littleEndian reports whether float32 memory is already in the file's
// byte order.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// floatBytes is v's memory as bytes, little-endian machines only.
func floatBytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*4)
}

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

// segSums are a segment's checksums: of its vectors, and of every other
// byte before its trailer (format 1: vecs is 0, rest sums every byte).
type segSums struct{ vecs, rest uint32 }

// encodeSegment writes src as a segment file to w, its rows' ids and
// metadata in an index file's format through encodeMeta (files.encodeIndex).
func encodeSegment(w io.Writer, src segmentSource, encodeMeta func(io.Writer, IndexSource) error) error {
	_, err := encodeSegmentSum(w, src, encodeMeta)
	return err
}

// encodeSegmentSum is encodeSegment, returning the checksums it wrote.
func encodeSegmentSum(w io.Writer, src segmentSource, encodeMeta func(io.Writer, IndexSource) error) (segSums, error) {
	if src.err != nil {
		if err := src.err(); err != nil {
			return segSums{}, err // the rows cannot be read: nothing is written
		}
	}
	rest, vecs := crc32.New(crcTable), crc32.New(crcTable)
	cw := &crcWriter{w: w, sum: rest}
	codes := src.codes && src.dim > 0 && src.rows > 0
	hdr := make([]byte, segHeaderLen)
	copy(hdr, segMagic)
	binary.LittleEndian.PutUint32(hdr[8:], segFormat)
	dim := uint32(segMixed)
	if src.dim >= 0 {
		dim = uint32(src.dim)
	}
	binary.LittleEndian.PutUint32(hdr[12:], dim)
	binary.LittleEndian.PutUint64(hdr[16:], uint64(src.rows))
	binary.LittleEndian.PutUint64(hdr[24:], uint64(len(src.tombs)))
	if codes {
		binary.LittleEndian.PutUint32(hdr[32:], segCodesOutliers)
	}
	if _, err := cw.Write(hdr); err != nil {
		return segSums{}, err
	}
	cw.sum = vecs
	var buf []byte
	if src.dim < 0 {
		for i := range src.rows {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(len(src.row(i).Vector)))
		}
	}
	for i := range src.rows {
		v := src.row(i).Vector
		if littleEndian {
			if len(buf) > 0 {
				if _, err := cw.Write(buf); err != nil {
					return segSums{}, err
				}
				buf = buf[:0]
			}
			if _, err := cw.Write(floatBytes(v)); err != nil {
				return segSums{}, err
			}
			continue
		}
		for _, f := range v {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
		}
	}
	if len(buf) > 0 {
		if _, err := cw.Write(buf); err != nil {
			return segSums{}, err
		}
		buf = buf[:0]
	}
	cw.sum = rest
	for i := range src.rows {
		buf = binary.LittleEndian.AppendUint32(buf, src.ser(i))
	}
	for _, t := range src.tombs {
		buf = binary.LittleEndian.AppendUint32(buf, t)
	}
	if codes && (cw.n+int64(len(buf)))%8 != 0 {
		buf = append(buf, 0, 0, 0, 0)
	}
	if _, err := cw.Write(buf); err != nil {
		return segSums{}, err
	}
	if codes {
		if err := encodeSegCodes(cw, src); err != nil {
			return segSums{}, err
		}
	}
	if src.err != nil {
		if err := src.err(); err != nil {
			return segSums{}, err
		}
	}
	item := src.row
	if src.meta != nil {
		item = src.meta
	}
	meta := IndexSource{Len: src.rows, Item: func(i int) IndexItem {
		it := item(i)
		it.Vector = []float32{}
		return it
	}}
	bw := bufio.NewWriterSize(cw, 64<<10)
	if err := encodeMeta(bw, meta); err != nil {
		return segSums{}, err
	}
	if err := bw.Flush(); err != nil {
		return segSums{}, err
	}
	sums := segSums{vecs: vecs.Sum32(), rest: rest.Sum32()}
	trailer := binary.LittleEndian.AppendUint32(nil, sums.vecs)
	trailer = binary.LittleEndian.AppendUint32(trailer, sums.rest)
	_, err := w.Write(append(trailer, segEnd...))
	return sums, err
}

// segment is a decoded segment file.
type segment struct {
	items   []IndexItem // vectors are views of the arena the decoder was given
	serials []uint32
	tombs   []uint32
	codes   *segCodes // the rows' codes, when the segment carries them
}

// segArena is where decodeSegment places vectors: it appends rows of
// length dim and returns the view of each.
type segArena struct {
	dim  int // -1 until the first uniform segment; -2 when lengths differ
	data []float32
	// reserve, when set, is the capacity in floats to give the arena once
	// the vector length is known, for a first segment of rows rows.
	reserve func(dim, rows int) int
	// rowsHint is the rows the segments to read are said to hold in all
	// (the manifest's count): room for up to that many is reserved in
	// items, but never for more than twice the rows read so far, which
	// their files' sizes vouch for.
	rowsHint int
	// items, when set, is where decodeSegment appends the rows (their
	// window is the segment's items), so that loading several segments
	// copies no row.
	items *[]IndexItem
}

// segCorrupt is the error of a damaged segment.
func segCorrupt(what string) error { return fmt.Errorf("segment: %s: %w", what, ErrCorrupt) }

// segHeader is what a segment's header says.
type segHeader struct {
	format       int
	dim          uint32 // segMixed when the rows' lengths differ
	rows, ntombs int
	codes        uint32 // segCodesOutliers, segCodesNibbles, or 0
}

// trailerLen is the length of the segment's trailer.
func (h segHeader) trailerLen() int {
	if h.format == 1 {
		return seg1TrailerLen
	}
	return segTrailerLen
}

// codesLen is the length of the codes section, 0 when there is none.
func (h segHeader) codesLen() int64 {
	if h.codes == 0 {
		return 0
	}
	return segCodesLen(h.codes, h.rows, int(h.dim))
}

// parseSegHeader reads a segment's header, checking its counts against
// the file's size (when known, else -1).
func parseSegHeader(hdr []byte, size int64) (segHeader, error) {
	format := binary.LittleEndian.Uint32(hdr[8:])
	if string(hdr[:8]) != segMagic || (format != 1 && format != segFormat) {
		return segHeader{}, segCorrupt("not a segment of format 1 or 2")
	}
	dim := binary.LittleEndian.Uint32(hdr[12:])
	rows64 := binary.LittleEndian.Uint64(hdr[16:])
	tombs64 := binary.LittleEndian.Uint64(hdr[24:])
	if size >= 0 && (rows64 > uint64(size)/4 || tombs64 > uint64(size)/4 || (dim != segMixed && rows64*uint64(dim) > uint64(size)/4)) {
		return segHeader{}, segCorrupt("counts larger than the file")
	}
	h := segHeader{format: int(format), dim: dim, rows: int(rows64), ntombs: int(tombs64)}
	if format > 1 {
		h.codes = binary.LittleEndian.Uint32(hdr[32:])
	}
	switch {
	case h.codes != 0 && ((h.codes != segCodesNibbles && h.codes != segCodesOutliers) || dim == segMixed || dim == 0 || h.rows == 0):
		return segHeader{}, segCorrupt(fmt.Sprintf("codes of kind %d", h.codes))
	case h.codes != 0 && size >= 0 && h.codesLen() > size:
		return segHeader{}, segCorrupt("codes larger than the file")
	}
	return h, nil
}

// parseSegInts reads the rows' serials and the tombstones.
func parseSegInts(seg *segment, ints []byte, rows, ntombs int) error {
	seg.serials = make([]uint32, rows)
	for i := range seg.serials {
		seg.serials[i] = binary.LittleEndian.Uint32(ints[i*4:])
		if i > 0 && seg.serials[i] <= seg.serials[i-1] {
			return segCorrupt("serials not increasing")
		}
	}
	seg.tombs = make([]uint32, ntombs)
	for i := range seg.tombs {
		seg.tombs[i] = binary.LittleEndian.Uint32(ints[(rows+i)*4:])
	}
	return nil
}

// segItems returns the slice the segment's rows go to: appended to
// arena.items when set.
func segItems(arena *segArena, rows int) []IndexItem {
	if arena.items == nil {
		return make([]IndexItem, rows)
	}
	base := len(*arena.items)
	*arena.items = reserveRows(*arena.items, rows, arena.rowsHint)[:base+rows]
	return (*arena.items)[base : base+rows : base+rows]
}

// reserveRows grows s to room for n more elements: when it must grow, to
// room for hint in all, but for no more than twice what it will then hold
// (hint is a count nothing vouches for yet).
func reserveRows[S ~[]E, E any](s S, n, hint int) S {
	need := len(s) + n
	if cap(s) >= need {
		return s
	}
	return slices.Grow(s, max(need, min(hint, 2*need))-len(s))
}

// segMetadata decodes the rows' ids, metadata, norms and side-car names
// (meta, the codec's index encoding) into seg.items, keeping each row's
// vector. When seg.items are all the rows arena holds (the first segment
// read), the decoded items take their place instead of being copied.
func segMetadata(seg *segment, meta []byte, codec IndexCodec, arena *segArena) error {
	data, err := codec.DeserializeIndex(meta)
	if err != nil {
		return fmt.Errorf("segment metadata: %w", err)
	}
	if len(data.Items) != len(seg.items) {
		return segCorrupt(fmt.Sprintf("%d rows of metadata for %d vectors", len(data.Items), len(seg.items)))
	}
	if n := len(seg.items); n > 0 && arena.items != nil && len(*arena.items) == n && &(*arena.items)[0] == &seg.items[0] {
		for i := range data.Items {
			data.Items[i].Vector = seg.items[i].Vector
		}
		*arena.items, seg.items = data.Items, data.Items[:n:n]
		return nil
	}
	for i, it := range data.Items {
		it.Vector = seg.items[i].Vector
		seg.items[i] = it
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

// decodeSegment reads a segment file of size bytes from r, appending its
// vectors to arena.
func decodeSegment(r io.Reader, size int64, codec IndexCodec, arena *segArena) (segment, error) {
	rest, vsum := crc32.New(crcTable), crc32.New(crcTable)
	tr := &sumReader{r: r, sum: rest}
	hdr := make([]byte, segHeaderLen)
	if _, err := io.ReadFull(tr, hdr); err != nil {
		return segment{}, readErr(err, segCorrupt)
	}
	h, err := parseSegHeader(hdr, size)
	if err != nil {
		return segment{}, err
	}
	if h.format > 1 {
		tr.sum = vsum
	}
	dim, rows, ntombs := h.dim, h.rows, h.ntombs
	seg := segment{items: segItems(arena, rows)}
	lengths := make([]int, rows)
	if dim == segMixed {
		raw := make([]byte, rows*4)
		if _, err := io.ReadFull(tr, raw); err != nil {
			return segment{}, readErr(err, segCorrupt)
		}
		var sum uint64
		for i := range lengths {
			lengths[i] = int(binary.LittleEndian.Uint32(raw[i*4:]))
			sum += uint64(lengths[i])
			if size >= 0 && sum > uint64(size)/4 {
				return segment{}, segCorrupt("vectors longer than the file")
			}
		}
	} else {
		for i := range lengths {
			lengths[i] = int(dim)
		}
	}
	total := 0
	for _, n := range lengths {
		total += n
	}
	uniform := dim != segMixed && rows > 0
	if uniform && arena.dim == -1 {
		arena.dim = int(dim)
	}
	start := len(arena.data)
	var vecs []float32
	if uniform && arena.dim == int(dim) {
		if arena.data == nil && arena.reserve != nil {
			arena.data = make([]float32, 0, max(total, arena.reserve(int(dim), rows)))
		}
		arena.data = slices.Grow(arena.data, total)[:start+total]
		vecs = arena.data[start:]
	} else {
		if rows > 0 {
			arena.dim = -2
		}
		vecs = make([]float32, total)
	}
	if err := readFloats(tr, vecs); err != nil {
		return segment{}, readErr(err, segCorrupt)
	}
	tr.sum = rest
	off := 0
	for i, n := range lengths {
		seg.items[i].Vector = vecs[off : off+n : off+n]
		off += n
	}
	ints := make([]byte, (rows+ntombs)*4)
	if _, err := io.ReadFull(tr, ints); err != nil {
		return segment{}, readErr(err, segCorrupt)
	}
	if err := parseSegInts(&seg, ints, rows, ntombs); err != nil {
		return segment{}, err
	}
	if n := h.codesLen(); n > 0 {
		pad := make([]byte, int((8-tr.n%8)%8))
		raw := make([]byte, n)
		if _, err := io.ReadFull(tr, pad); err != nil {
			return segment{}, readErr(err, segCorrupt)
		}
		if _, err := io.ReadFull(tr, raw); err != nil {
			return segment{}, readErr(err, segCorrupt)
		}
		if seg.codes, err = decodeSegCodes(raw, h.codes, rows, int(dim)); err != nil {
			return segment{}, err
		}
	}
	all, err := io.ReadAll(r)
	if err != nil {
		return segment{}, readErr(err, segCorrupt)
	}
	tl := h.trailerLen()
	if len(all) < tl || string(all[len(all)-8:]) != segEnd {
		return segment{}, segCorrupt("truncated")
	}
	meta := all[:len(all)-tl]
	rest.Write(meta)
	trailer := all[len(meta):]
	if h.format > 1 {
		if binary.LittleEndian.Uint32(trailer) != vsum.Sum32() {
			return segment{}, segCorrupt("checksum of the vectors mismatch")
		}
		trailer = trailer[4:]
	}
	if binary.LittleEndian.Uint32(trailer) != rest.Sum32() {
		return segment{}, segCorrupt("checksum mismatch")
	}
	if err := segMetadata(&seg, meta, codec, arena); err != nil {
		return segment{}, err
	}
	return seg, nil
}

// decodeMappedSegment decodes a segment of uniform vector length from its
// mapped bytes b, as decodeSegment does, except that the vectors stay in
// b: it returns them (rows×dim values, little-endian machines only) and
// appends only the rows to arena.items. The checksums are verified while
// the metadata decodes. A segment of mixed lengths is ErrCorrupt here:
// the caller reads it with decodeSegment instead (mappable tells).
func decodeMappedSegment(b []byte, codec IndexCodec, arena *segArena) (segment, []float32, error) {
	return decodeMappedSegmentSum(b, codec, arena, mappedCheck{})
}

// mappedCheck says what decodeMappedSegmentSum checks.
type mappedCheck struct {
	// known, when set, holds the checksums of a segment this process wrote
	// and summed as it wrote it: the trailer is compared with them instead
	// of summing every byte again (which would also bring the whole file
	// into the process's memory).
	known *segSums
	// skipVectors leaves the checksum of the vectors of a segment that
	// carries codes unchecked: the caller reads its codes, and only the
	// few rows a query re-ranks from the vectors.
	skipVectors bool
}

// decodeMappedSegmentSum is decodeMappedSegment, checking as check says.
func decodeMappedSegmentSum(b []byte, codec IndexCodec, arena *segArena, check mappedCheck) (segment, []float32, error) {
	if len(b) < segHeaderLen+seg1TrailerLen {
		return segment{}, nil, segCorrupt("truncated")
	}
	h, err := parseSegHeader(b[:segHeaderLen], int64(len(b)))
	if err != nil {
		return segment{}, nil, err
	}
	if h.dim == segMixed {
		return segment{}, nil, segCorrupt("mixed vector lengths")
	}
	d, rows, ntombs, tl := int(h.dim), h.rows, h.ntombs, h.trailerLen()
	vecEnd := segHeaderLen + rows*d*4
	intsEnd := vecEnd + (rows+ntombs)*4
	codesAt, codesEnd := intsEnd, int64(intsEnd)
	if n := h.codesLen(); n > 0 {
		codesAt = (intsEnd + 7) &^ 7
		codesEnd = int64(codesAt) + n
	}
	if codesEnd+int64(tl) > int64(len(b)) {
		return segment{}, nil, segCorrupt("truncated")
	}
	tail := b[len(b)-tl:]
	if string(tail[len(tail)-8:]) != segEnd {
		return segment{}, nil, segCorrupt("truncated")
	}
	// The checksums read every byte they cover; they run beside the
	// decoding.
	sumOK := make(chan bool, 1)
	switch {
	case check.known != nil && h.format > 1:
		sumOK <- *check.known == segSums{vecs: binary.LittleEndian.Uint32(tail), rest: binary.LittleEndian.Uint32(tail[4:])}
	case check.known != nil:
		sumOK <- *check.known == segSums{rest: binary.LittleEndian.Uint32(tail)}
	case h.format == 1:
		go func() { sumOK <- parallelCRC(b[:len(b)-tl]) == binary.LittleEndian.Uint32(tail) }()
	default:
		skip := check.skipVectors && h.codes != 0
		go func() {
			body := b[vecEnd : len(b)-tl]
			rest := crcCombine(crc32.Checksum(b[:segHeaderLen], crcTable), parallelCRC(body), int64(len(body)))
			ok := rest == binary.LittleEndian.Uint32(tail[4:])
			if ok && !skip {
				ok = parallelCRC(b[segHeaderLen:vecEnd]) == binary.LittleEndian.Uint32(tail)
			}
			sumOK <- ok
		}()
	}
	var vecs []float32
	if rows*d > 0 {
		vecs = unsafe.Slice((*float32)(unsafe.Pointer(&b[segHeaderLen])), rows*d)
	}
	var seg segment
	err = parseSegInts(&seg, b[vecEnd:intsEnd], rows, ntombs)
	if err == nil && h.codes != 0 {
		seg.codes, err = decodeSegCodes(b[codesAt:codesEnd], h.codes, rows, d)
	}
	if err == nil {
		err = mappedRows(&seg, b[codesEnd:len(b)-tl], codec, arena, vecs, d)
	}
	if !<-sumOK {
		return segment{}, nil, segCorrupt("checksum mismatch")
	}
	if err != nil {
		return segment{}, nil, err
	}
	return seg, vecs, nil
}

// mappedRows decodes a mapped segment's rows (meta, the codec's index
// encoding) into seg.items, each row's vector a view of vecs, rows of d.
// The decoded items are the rows themselves: the first segment's become
// arena.items, a later one's are appended to it.
func mappedRows(seg *segment, meta []byte, codec IndexCodec, arena *segArena, vecs []float32, d int) error {
	data, err := codec.DeserializeIndex(meta)
	if err != nil {
		return fmt.Errorf("segment metadata: %w", err)
	}
	rows := len(seg.serials)
	if len(data.Items) != rows {
		return segCorrupt(fmt.Sprintf("%d rows of metadata for %d vectors", len(data.Items), rows))
	}
	items := data.Items[:rows:rows]
	if arena.items != nil {
		if base := len(*arena.items); base == 0 && cap(*arena.items) < rows {
			*arena.items = items
		} else {
			*arena.items = append(reserveRows(*arena.items, rows, arena.rowsHint), items...)
			items = (*arena.items)[base : base+rows : base+rows]
		}
	}
	for i := range items {
		items[i].Vector = nil // the vectors left unread
		if vecs != nil {
			items[i].Vector = vecs[i*d : (i+1)*d : (i+1)*d]
		}
	}
	seg.items = items
	return nil
}

// restLayout is where the parts of a segment of format 2 with 4-bit codes
// lie after its vectors: its serials and tombstones (with the padding
// before the codes) from vecEnd, its codes from codesAt, and from codesEnd
// its metadata and trailer.
func restLayout(h segHeader) (vecEnd, codesAt, codesEnd int64) {
	vecEnd = int64(segHeaderLen) + int64(h.rows)*int64(h.dim)*4
	codesAt = (vecEnd + int64(h.rows+h.ntombs)*4 + 7) &^ 7
	return vecEnd, codesAt, codesAt + h.codesLen()
}

// decodeSegmentRest decodes a segment of format 2 with 4-bit codes from
// its header and the parts after its vectors (restLayout: ints, codes,
// and tail, which ends the file), the vectors not read: the rows' vectors
// are left nil, and only the checksum of the header and those parts is
// verified. The rows are appended to arena.items, as decodeMappedSegment
// appends them; the codes stay views of codes.
func decodeSegmentRest(hdr, ints, codes, tail []byte, h segHeader, codec IndexCodec, arena *segArena) (segment, error) {
	d, rows, tl := int(h.dim), h.rows, h.trailerLen()
	if h.format < 2 || h.codes == 0 || int64(len(codes)) != h.codesLen() || len(ints) < (rows+h.ntombs)*4 || len(tail) < tl {
		return segment{}, segCorrupt("truncated")
	}
	trailer := tail[len(tail)-tl:]
	if string(trailer[len(trailer)-8:]) != segEnd {
		return segment{}, segCorrupt("truncated")
	}
	meta := tail[:len(tail)-tl]
	sum := crc32.Checksum(hdr, crcTable)
	for _, part := range [][]byte{ints, codes, meta} {
		sum = crcCombine(sum, parallelCRC(part), int64(len(part)))
	}
	if sum != binary.LittleEndian.Uint32(trailer[4:]) {
		return segment{}, segCorrupt("checksum mismatch")
	}
	var seg segment
	if err := parseSegInts(&seg, ints, rows, h.ntombs); err != nil {
		return segment{}, err
	}
	var err error
	if seg.codes, err = decodeSegCodes(codes, h.codes, rows, d); err != nil {
		return segment{}, err
	}
	if err := mappedRows(&seg, meta, codec, arena, nil, d); err != nil {
		return segment{}, err
	}
	return seg, nil
}

// readErr makes a short read of a segment corrupt; other read errors pass.
func readErr(err error, corrupt func(string) error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return corrupt("truncated")
	}
	return err
}

// readFloats fills v with little-endian float32s from r.
func readFloats(r io.Reader, v []float32) error {
	if littleEndian {
		_, err := io.ReadFull(r, floatBytes(v))
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
