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

// decodeItems decodes every piece into an item, in order. Large indexes are
// decoded by up to GOMAXPROCS goroutines, each on a contiguous run of
// pieces of about the same size.
func decodeItems(pieces [][]byte) ([]core.IndexItem, error) {
	if pieces == nil {
		return nil, nil // "items":null
	}
	items := make([]core.IndexItem, len(pieces))
	total := 0
	for _, p := range pieces {
		total += len(p)
	}
	workers := min(runtime.GOMAXPROCS(0), len(pieces), total/parallelItemBytes+1)
	if workers <= 1 {
		return items, decodeItemRun(pieces, items, 0)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	per, first := total/workers, 0
	for w := range workers {
		last, size := first, 0
		for last < len(pieces) && (size < per || w == workers-1) {
			size += len(pieces[last])
			last++
		}
		lo, hi := first, last
		wg.Go(func() { errs[w] = decodeItemRun(pieces[lo:hi], items[lo:hi], lo) })
		first = last
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first in item order
		}
	}
	return items, nil
}

// decodeItemRun decodes a run of pieces; base is the index of the first.
func decodeItemRun(pieces [][]byte, items []core.IndexItem, base int) error {
	var id itemDecoder
	for i, p := range pieces {
		it, err := id.decode(p)
		if err != nil {
			return fmt.Errorf("items[%d]: %w", base+i, err)
		}
		items[i] = it
	}
	return nil
}

// itemDecoder decodes item objects, one piece at a time. It remembers the
// length of the last vector, since the vectors of one index share their
// dimensions.
type itemDecoder struct {
	dec   *jsontext.Decoder
	guess int
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
func (id *itemDecoder) decode(piece []byte) (core.IndexItem, error) {
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
			it.Vector, n, err = parseVector(src[off:], id.guess)
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
