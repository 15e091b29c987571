package core

import (
	"fmt"
	"io"
	"slices"

	"github.com/foliovec/folio/core/internal/segfile"
)

// The segmented layout's files are in package segfile: the manifest, and
// the segment files whose rows' metadata is a blob in an index file's
// format of the index's codec. This file turns their rows into items and
// items into their rows.

// manifest is the segmented layout's manifest file.
type manifest = segfile.Manifest

// segmentEntry is a segment as the manifest names it.
type segmentEntry = segfile.Entry

func newManifest(version int, config MetadataConfig) manifest {
	return segfile.NewManifest(version, config.Indexed)
}

// manifestConfig is the metadata config m records.
func manifestConfig(m *manifest) MetadataConfig {
	return MetadataConfig{Indexed: m.IndexedFields()}
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
	// codes, when set, writes the rows' 4-bit codes into a segment of
	// uniform vector length.
	codes bool
}

// encodeSegment writes src as a segment file to w, its rows' ids and
// metadata in an index file's format through encodeMeta (files.encodeIndex),
// and returns the checksums it wrote.
func encodeSegment(w io.Writer, src segmentSource, encodeMeta func(io.Writer, IndexSource) error) (segfile.Sums, error) {
	item := src.row
	if src.meta != nil {
		item = src.meta
	}
	return segfile.Encode(w, segfile.Source{
		Rows:   src.rows,
		Dim:    src.dim,
		Vector: func(i int) []float32 { return src.row(i).Vector },
		Serial: src.ser,
		Tombs:  src.tombs,
		Codes:  src.codes,
		Err:    src.err,
		Meta: func(w io.Writer) error {
			return encodeMeta(w, IndexSource{Len: src.rows, Item: func(i int) IndexItem {
				it := item(i)
				it.Vector = []float32{}
				return it
			}})
		},
	})
}

// segment is a decoded segment file.
type segment struct {
	items   []IndexItem // vectors are views of the arena the decoder was given, or of the file
	serials []uint32
	tombs   []uint32
	codes   *segfile.Codes // the rows' codes, when the segment carries them
}

// segArena is where the decoders place vectors (segfile.Arena) and rows:
// with items set, each segment's rows are appended to it (their window is
// the segment's items), so that loading several segments copies no row.
type segArena struct {
	segfile.Arena
	// rowsHint is the rows the segments to read are said to hold in all
	// (the manifest's count): room for up to that many is reserved in
	// items, but never for more than twice the rows read so far, which
	// their files' sizes vouch for.
	rowsHint int
	items    *[]IndexItem
}

// newSegArena is an arena of no vector length yet.
func newSegArena() *segArena { return &segArena{Arena: segfile.Arena{Dim: -1}} }

// decodeSegment reads a segment file of size bytes from r, appending its
// vectors to arena.
func decodeSegment(r io.Reader, size int64, codec IndexCodec, arena *segArena) (segment, error) {
	var seg segment
	f, err := segfile.Decode(r, size, &arena.Arena, arena.rows(codec, &seg))
	if err != nil {
		return segment{}, err
	}
	return seg.of(f), nil
}

// decodeMappedSegment decodes a segment of uniform vector length from its
// mapped bytes b, its vectors left in b (segfile.DecodeMapped), and
// returns them.
func decodeMappedSegment(b []byte, codec IndexCodec, arena *segArena, check segfile.Check) (segment, []float32, error) {
	var seg segment
	f, err := segfile.DecodeMapped(b, check, arena.rows(codec, &seg))
	if err != nil {
		return segment{}, nil, err
	}
	return seg.of(f), f.Vecs, nil
}

// decodeSegmentRest decodes a segment with 4-bit codes from the parts
// after its vectors (segfile.DecodeRest): the rows' vectors are nil.
func decodeSegmentRest(hdr, ints, codes, tail []byte, h segfile.Header, codec IndexCodec, arena *segArena) (segment, error) {
	var seg segment
	f, err := segfile.DecodeRest(hdr, ints, codes, tail, h, arena.rows(codec, &seg))
	if err != nil {
		return segment{}, err
	}
	return seg.of(f), nil
}

// of completes seg, whose items are decoded, with f's other parts.
func (seg segment) of(f segfile.Segment) segment {
	seg.serials, seg.tombs, seg.codes = f.Serials, f.Tombs, f.Codes
	return seg
}

// rows decodes a segment's metadata blob through codec into seg.items,
// each row's vector a view of the segment's: the decoded items are the
// rows themselves; the first segment's become arena.items, a later one's
// are appended to it.
func (arena *segArena) rows(codec IndexCodec, seg *segment) segfile.MetaFunc {
	return func(f *segfile.Segment, meta []byte) error {
		data, err := codec.DeserializeIndex(meta)
		if err != nil {
			return fmt.Errorf("segment metadata: %w", err)
		}
		rows := f.Rows()
		if len(data.Items) != rows {
			return fmt.Errorf("segment: %d rows of metadata for %d vectors: %w", len(data.Items), rows, ErrCorrupt)
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
		f.EachVector(func(i int, v []float32) { items[i].Vector = v })
		seg.items = items
		return nil
	}
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
