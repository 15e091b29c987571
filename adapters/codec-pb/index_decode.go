package codecpb

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/foliovec/folio/core"
	"google.golang.org/protobuf/encoding/protowire"
)

// DeserializeIndex decodes an IndexData message. Items keep their order;
// an item's metadata is never nil; MetadataConfig.Indexed is never nil
// (Vectra's reader returns `indexed ?? []`). Vector components are float32
// as stored. The vectors of all items share one allocation, each capped so
// that appending to one never writes into another.
//
// NaN and ±Inf, which Folio never writes, read as 0 wherever they appear
// (vector components, norms, metadata numbers): Vectra's JSON files hold
// null for them, which reads as 0 too, so an index reads the same in both
// formats, and whatever is decoded can be encoded again.
func (*ProtobufCodec) DeserializeIndex(b []byte) (core.IndexData, error) {
	const op = "decode index"
	data, spans, floats, err := scanIndex(b)
	if err != nil {
		return core.IndexData{}, corrupt(op, err)
	}
	data.Items = make([]core.IndexItem, len(spans))
	if err := decodeItems(data.Items, spans, make([]float32, floats)); err != nil {
		return core.IndexData{}, corrupt(op, err)
	}
	return data, nil
}

// itemSpan is one IndexItem message found by scanIndex, with the arena
// offset of its first vector component.
type itemSpan struct {
	b     []byte
	float int
}

// scanIndex walks an IndexData message once: it decodes the version and
// metadata config, and finds the items and how many vector components each
// holds, so that the arena is allocated once and the items can be decoded
// in parallel.
func scanIndex(b []byte) (data core.IndexData, spans []itemSpan, floats int, err error) {
	data.MetadataConfig.Indexed = []string{}
	for len(b) > 0 {
		f, n, err := nextField(b)
		if err != nil {
			return core.IndexData{}, nil, 0, err
		}
		b = b[n:]
		switch {
		case f.is(fieldIndexVersion, protowire.VarintType):
			data.Version = int(uint32(f.u))
		case f.is(fieldIndexMetadataConfig, protowire.BytesType):
			// A message field that occurs twice is merged: the lists join.
			data.MetadataConfig.Indexed, err = appendIndexed(data.MetadataConfig.Indexed, f.b)
			if err != nil {
				return core.IndexData{}, nil, 0, fmt.Errorf("metadata_config: %w", err)
			}
		case f.is(fieldIndexItems, protowire.BytesType):
			spans = append(spans, itemSpan{b: f.b, float: floats})
			for ib := f.b; len(ib) > 0; {
				g, m, err := nextField(ib)
				if err != nil {
					return core.IndexData{}, nil, 0, fmt.Errorf("items[%d]: %w", len(spans)-1, err)
				}
				ib = ib[m:]
				switch {
				case g.is(fieldItemVector, protowire.BytesType):
					if len(g.b)%4 != 0 {
						return core.IndexData{}, nil, 0, fmt.Errorf("items[%d]: vector: %w", len(spans)-1, errPackedLength)
					}
					floats += len(g.b) / 4
				case g.is(fieldItemVector, protowire.Fixed32Type):
					floats++
				}
			}
		}
	}
	return data, spans, floats, nil
}

// minItemsPerWorker is the smallest share of items worth a goroutine.
const minItemsPerWorker = 4096

// decodeItems decodes the items of spans into items, their vectors into
// arena, splitting the work over up to GOMAXPROCS goroutines for large
// indexes. Each worker owns a contiguous run of items and of the arena. On
// failure it returns the error of the first bad item.
func decodeItems(items []core.IndexItem, spans []itemSpan, arena []float32) error {
	workers := min(runtime.GOMAXPROCS(0), len(spans)/minItemsPerWorker)
	if workers <= 1 {
		return decodeRun(items, spans, arena, 0, len(spans))
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(spans)/workers, (w+1)*len(spans)/workers
		wg.Go(func() { errs[w] = decodeRun(items, spans, arena, lo, hi) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// decodeRun decodes items[lo:hi].
func decodeRun(items []core.IndexItem, spans []itemSpan, arena []float32, lo, hi int) error {
	if lo >= hi {
		return nil
	}
	end := len(arena)
	if hi < len(spans) {
		end = spans[hi].float
	}
	d := indexDecoder{arena: arena[:end], pos: spans[lo].float, in: newInterner()}
	for i := lo; i < hi; i++ {
		var err error
		if items[i], err = d.item(spans[i].b); err != nil {
			return fmt.Errorf("items[%d]: %w", i, err)
		}
	}
	return nil
}

// appendIndexed decodes a MetadataConfig message onto indexed.
func appendIndexed(indexed []string, b []byte) ([]string, error) {
	for len(b) > 0 {
		f, n, err := nextField(b)
		if err != nil {
			return nil, err
		}
		b = b[n:]
		if f.is(fieldConfigIndexed, protowire.BytesType) {
			indexed = append(indexed, text(f.b))
		}
	}
	return indexed, nil
}

// indexDecoder decodes a run of items into their part of the vector arena.
type indexDecoder struct {
	arena []float32 // ends where the next run's vectors start
	pos   int       // the next component's offset
	in    *interner
}

// errArena means scanIndex and item disagree on a vector's length; it
// cannot happen unless they parse differently.
var errArena = errors.New("vector components outnumber the count")

// item decodes one IndexItem message.
func (d *indexDecoder) item(b []byte) (core.IndexItem, error) {
	var it core.IndexItem
	start := d.pos
	for len(b) > 0 {
		f, n, err := nextField(b)
		if err != nil {
			return core.IndexItem{}, err
		}
		b = b[n:]
		switch {
		case f.is(fieldItemID, protowire.BytesType):
			it.ID = text(f.b)
		case f.is(fieldItemMetadata, protowire.BytesType):
			key, value, err := d.metadataEntry(f.b)
			if err != nil {
				return core.IndexItem{}, fmt.Errorf("metadata: %w", err)
			}
			if it.Metadata == nil {
				it.Metadata = make(core.Metadata, 4)
			}
			it.Metadata[key] = value
		case f.is(fieldItemVector, protowire.BytesType):
			if len(f.b)%4 != 0 {
				return core.IndexItem{}, fmt.Errorf("vector: %w", errPackedLength)
			}
			k := len(f.b) / 4
			if d.pos+k > len(d.arena) {
				return core.IndexItem{}, errArena
			}
			decodeFloats(d.arena[d.pos:d.pos+k], f.b)
			d.pos += k
		case f.is(fieldItemVector, protowire.Fixed32Type):
			if d.pos >= len(d.arena) {
				return core.IndexItem{}, errArena
			}
			d.arena[d.pos] = finite32(uint32(f.u))
			d.pos++
		case f.is(fieldItemNorm, protowire.Fixed64Type):
			it.Norm = finite64(math.Float64frombits(f.u))
		case f.is(fieldItemMetadataFile, protowire.BytesType):
			it.MetadataFile = text(f.b)
		}
	}
	if d.pos > start {
		it.Vector = d.arena[start:d.pos:d.pos]
	}
	if it.Metadata == nil {
		it.Metadata = core.Metadata{}
	}
	return it, nil
}

// metadataEntry decodes one entry of the metadata map. A missing key is
// "", a missing value reads as "".
func (d *indexDecoder) metadataEntry(b []byte) (string, any, error) {
	var key string
	var v readValue
	for len(b) > 0 {
		f, n, err := nextField(b)
		if err != nil {
			return "", nil, err
		}
		b = b[n:]
		switch {
		case f.is(fieldMapKey, protowire.BytesType):
			key = d.in.key(f.b)
		case f.is(fieldMapValue, protowire.BytesType):
			// A message field that occurs twice is merged.
			if err := d.value(&v, f.b); err != nil {
				return "", nil, fmt.Errorf("key %q: %w", key, err)
			}
		}
	}
	return key, v.resolve(d.in), nil
}

// value decodes a MetadataValue message into v.
func (d *indexDecoder) value(v *readValue, b []byte) error {
	for len(b) > 0 {
		f, n, err := nextField(b)
		if err != nil {
			return err
		}
		b = b[n:]
		switch {
		case f.is(fieldValueString, protowire.BytesType):
			v.kind, v.str = kindString, d.in.value(f.b)
		case f.is(fieldValueNumber, protowire.Fixed64Type):
			v.kind, v.num = kindNumber, finite64(math.Float64frombits(f.u))
		case f.is(fieldValueBool, protowire.VarintType):
			v.kind, v.b = kindBool, protowire.DecodeBool(f.u)
		}
	}
	return nil
}

// finite32 is the float32 with the given bits, or 0 when it is NaN or ±Inf.
func finite32(bits uint32) float32 {
	if bits&0x7f800000 == 0x7f800000 {
		return 0
	}
	return math.Float32frombits(bits)
}

// finite64 is f, or 0 when f is NaN or ±Inf.
func finite64(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
