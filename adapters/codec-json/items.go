package codecjson

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"

	"github.com/foliovec/folio/core"
	"github.com/go-json-experiment/json/jsontext"
)

// An index file is almost all items, and an item almost all vector. Items
// are decoded from their own byte ranges ("pieces"), in parallel for large
// indexes, and vectors are parsed by parseVector rather than token by token.
//
// Pieces are found one of two ways. splitItems cuts the items array at
// every `},{"id":` — the compact form Vectra and Folio write. That text
// cannot occur inside a JSON string (its quotes would be escaped), so every
// cut is at an object boundary; a cut inside a nested object leaves a piece
// that is not one whole object, decodeItem rejects it, and decoding starts
// again the careful way. collectItems walks the array with the decoder,
// which accepts any JSON (white space, other key orders) and gives the
// error for an invalid file.

// splitItems cuts the items array that starts after src[:off] (the
// "items" name) into one piece per item, if the array is the last member
// of the top-level object and written compactly. ok is false when the
// layout is not that; the pieces still have to be checked by decodeItem.
func splitItems(src []byte, off int) (pieces [][]byte, ok bool) {
	i := skipSpace(src, off)
	if at(src, i) != ':' {
		return nil, false
	}
	open := skipSpace(src, i+1)
	if at(src, open) != '[' {
		return nil, false
	}
	end := trimSpaceRight(src, len(src))
	if end == 0 || src[end-1] != '}' {
		return nil, false
	}
	end = trimSpaceRight(src, end-1)
	if end == 0 || src[end-1] != ']' || end-1 <= open {
		return nil, false
	}
	region := src[skipSpace(src, open+1):trimSpaceRight(src, end-1)]
	if len(region) == 0 {
		return [][]byte{}, true
	}
	sep := []byte(`},{"id":`)
	for {
		k := bytes.Index(region, sep)
		if k < 0 {
			return append(pieces, region), true
		}
		pieces = append(pieces, region[:k+1])
		region = region[k+2:]
	}
}

// collectItems reads the items array (or null) with the decoder, checking
// its syntax, and returns one piece of src per item.
func collectItems(d *jsontext.Decoder, src []byte) ([][]byte, error) {
	if d.PeekKind() == 'n' {
		_, err := d.ReadToken()
		return nil, err
	}
	if err := readDelim(d, '['); err != nil {
		return nil, err
	}
	pieces := [][]byte{}
	for d.PeekKind() != ']' {
		if k := d.PeekKind(); k != '{' {
			return nil, fmt.Errorf("items[%d]: got %s, want an object", len(pieces), kindName(k))
		}
		start := int(d.InputOffset())
		if _, err := d.ReadValue(); err != nil {
			return nil, fmt.Errorf("items[%d]: %w", len(pieces), err)
		}
		piece := src[start:d.InputOffset()]
		pieces = append(pieces, bytes.TrimLeft(piece, ", \t\r\n"))
	}
	return pieces, readDelim(d, ']')
}

// parallelItemBytes is the amount of item text from which decodeItems
// splits the work across goroutines.
const parallelItemBytes = 1 << 20

// decodeItems decodes every piece into an item, in order, and returns the
// array the vectors live in when they all have one length d: item i's
// vector is arena[i*d:(i+1)*d:(i+1)*d] (see DeserializeIndexArena). When
// the lengths differ, arena is nil. Large indexes are decoded by up to
// GOMAXPROCS goroutines, each on a contiguous run of pieces of about the
// same size.
//
// The first item is decoded alone: its vector's length sizes the arena,
// and every other vector is parsed straight into its row, so no vector is
// copied after parsing. A vector of another length marks the lengths as
// mixed: a longer one leaves its row as parseVector's append outgrows it,
// a shorter one keeps the start of its row.
func decodeItems(pieces [][]byte) (items []core.IndexItem, arena []float32, err error) {
	if pieces == nil {
		return nil, []float32{}, nil // "items":null
	}
	items = make([]core.IndexItem, len(pieces))
	if len(pieces) == 0 {
		return items, []float32{}, nil
	}
	var first itemDecoder
	if items[0], err = first.decode(pieces[0], 0); err != nil {
		return nil, nil, fmt.Errorf("items[0]: %w", err)
	}
	rest, total := pieces[1:], 0
	for _, p := range rest {
		total += len(p)
	}
	dim := len(items[0].Vector)
	switch {
	case dim == 0:
		arena = []float32{}
	case len(rest) <= total/2/dim:
		// Each component takes two bytes at least ("0,"); a first vector
		// longer than the other pieces could each hold sizes no arena (it
		// would be larger than the file allows).
		arena = make([]float32, len(pieces)*dim, core.ArenaRoom(len(pieces))*dim)
		items[0].Vector = append(arena[:0:dim], items[0].Vector...)
	}
	workers := min(runtime.GOMAXPROCS(0), len(rest), total/parallelItemBytes+1)
	decoders := make([]itemDecoder, max(workers, 1))
	errs := make([]error, len(decoders))
	var wg sync.WaitGroup
	per, next := total/len(decoders), 0
	for w := range decoders {
		lo, hi, size := next, next, 0
		for hi < len(rest) && (size < per || w == len(decoders)-1) {
			size += len(rest[hi])
			hi++
		}
		decoders[w] = itemDecoder{guess: dim, arena: arena, dim: dim}
		run := func() { errs[w] = decodeItemRun(&decoders[w], rest[lo:hi], items[1+lo:1+hi], 1+lo) }
		if len(decoders) == 1 {
			run()
		} else {
			wg.Go(run)
		}
		next = hi
	}
	wg.Wait()
	for w := range decoders {
		if errs[w] != nil {
			return nil, nil, errs[w] // the first in item order
		}
		if decoders[w].mixed {
			arena = nil
		}
	}
	return items, arena, nil
}

// decodeItemRun decodes a run of pieces with id; base is the index of the
// first.
func decodeItemRun(id *itemDecoder, pieces [][]byte, items []core.IndexItem, base int) error {
	for i, p := range pieces {
		it, err := id.decode(p, base+i)
		if err != nil {
			return fmt.Errorf("items[%d]: %w", base+i, err)
		}
		if len(it.Vector) != id.dim {
			id.mixed = true
		}
		items[i] = it
	}
	return nil
}

// itemDecoder decodes item objects, one piece at a time. Vectors go to
// their row of the arena when there is one; otherwise each gets memory of
// its own, as much as the last vector took, since the vectors of one
// index share their dimensions.
type itemDecoder struct {
	dec   *jsontext.Decoder
	guess int
	arena []float32 // rows of dim components, item i's at i*dim; nil: none
	dim   int
	mixed bool // a vector's length was not dim
}

// vectorDst is the empty slice that item i's vector is parsed onto.
func (id *itemDecoder) vectorDst(i int) []float32 {
	if id.arena != nil && id.dim > 0 {
		return id.arena[i*id.dim : i*id.dim : (i+1)*id.dim]
	}
	return make([]float32, 0, id.guess)
}

func (id *itemDecoder) reset(b []byte) *jsontext.Decoder {
	if id.dec == nil {
		id.dec = newDecoder(b)
	} else {
		resetDecoder(id.dec, b)
	}
	return id.dec
}

// decode decodes piece, which must hold exactly one item object. The
// decoder reads the members up to "vector"; parseVector reads the vector
// from the bytes that follow, checking its syntax itself; the members after
// it, if any, are read by a fresh decoder from a copy that starts with '{'.
func (id *itemDecoder) decode(piece []byte, i int) (core.IndexItem, error) {
	var it core.IndexItem
	src := piece
	d := id.reset(src)
	if err := readDelim(d, '{'); err != nil {
		return it, err
	}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return it, err
		}
		name := tok.String()
		switch name {
		case "id":
			it.ID, err = readString(d)
		case "metadata":
			it.Metadata, err = readMetadata(d)
		case "norm":
			it.Norm, err = readFloat(d)
		case "metadataFile":
			it.MetadataFile, err = readString(d)
		case "vector":
			off := int(d.InputOffset())
			var n int
			it.Vector, n, err = parseVector(src[off:], id.vectorDst(i))
			if err != nil {
				break
			}
			id.guess = len(it.Vector)
			rest := src[off+n:]
			i := skipSpace(rest, 0)
			switch at(rest, i) {
			case '}':
				if skipSpace(rest, i+1) != len(rest) {
					return it, fmt.Errorf("after the item: got %s", describe(rest[i+1:]))
				}
				return it, nil
			case ',':
				if at(rest, skipSpace(rest, i+1)) != '"' {
					return it, fmt.Errorf("after \"vector\": got %s, want a name", describe(rest[i+1:]))
				}
				src = append([]byte{'{'}, rest[i+1:]...)
				d = id.reset(src)
				err = readDelim(d, '{')
			default:
				return it, fmt.Errorf("after \"vector\": got %s, want ',' or '}'", describe(rest[i:]))
			}
		default:
			err = d.SkipValue()
		}
		if err != nil {
			return it, fmt.Errorf("%q: %w", name, err)
		}
	}
	if err := readDelim(d, '}'); err != nil {
		return it, err
	}
	return it, readEnd(d)
}

func trimSpaceRight(b []byte, end int) int {
	for end > 0 && (b[end-1] == ' ' || b[end-1] == '\n' || b[end-1] == '\r' || b[end-1] == '\t') {
		end--
	}
	return end
}
