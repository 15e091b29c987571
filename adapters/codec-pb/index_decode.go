package codecpb

import (
	"errors"
	"fmt"
	"maps"
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
//
// Items whose metadata entries are the same bytes share one Metadata map
// (a few thousand distinct maps at most are shared per decode): an index
// whose items repeat a few combinations of values, as a category and a
// year do, then holds a few maps instead of one per item. Treat decoded
// metadata as read-only, or clone a map before changing it.
func (c *ProtobufCodec) DeserializeIndex(b []byte) (core.IndexData, error) {
	data, _, err := c.DeserializeIndexArena(b)
	return data, err
}

// DeserializeIndexArena is DeserializeIndex that also returns the
// allocation the vectors share (see [core.VectorArenaDecoder]): when every
// item's vector has the same length d, item i's vector is
// arena[i*d:(i+1)*d:(i+1)*d] and len(arena) is len(items)*d. When the
// lengths differ the arena is nil (the vectors still share one
// allocation); it is never nil otherwise, not even for an index without
// items. The codec keeps no reference to it.
func (*ProtobufCodec) DeserializeIndexArena(b []byte) (core.IndexData, []float32, error) {
	const op = "decode index"
	data, spans, err := scanIndex(b)
	if err != nil {
		return core.IndexData{}, nil, corrupt(op, err)
	}
	data.Items = make([]core.IndexItem, len(spans))
	arena, err := decodeItems(data.Items, spans, len(b)/4)
	if err != nil {
		return core.IndexData{}, nil, corrupt(op, err)
	}
	return data, arena, nil
}

// itemSpan is one IndexItem message found by scanIndex, with the arena
// offset of its first vector component.
type itemSpan struct {
	b     []byte
	float int
}

// scanIndex walks the top level of an IndexData message once: it decodes
// the version and metadata config, and finds the items, so that they can
// be decoded in parallel.
func scanIndex(b []byte) (data core.IndexData, spans []itemSpan, err error) {
	data.MetadataConfig.Indexed = []string{}
	for len(b) > 0 {
		f, n, err := nextField(b)
		if err != nil {
			return core.IndexData{}, nil, err
		}
		b = b[n:]
		switch {
		case f.is(fieldIndexVersion, protowire.VarintType):
			data.Version = int(uint32(f.u))
		case f.is(fieldIndexMetadataConfig, protowire.BytesType):
			// A message field that occurs twice is merged: the lists join.
			data.MetadataConfig.Indexed, err = appendIndexed(data.MetadataConfig.Indexed, f.b)
			if err != nil {
				return core.IndexData{}, nil, fmt.Errorf("metadata_config: %w", err)
			}
		case f.is(fieldIndexItems, protowire.BytesType):
			if spans == nil {
				// Items are alike in size: room for as many as the rest
				// of the message would hold of this one (counted as 16
				// bytes at least, to bound the guess).
				spans = make([]itemSpan, 0, len(b)/max(n, 16)+1)
			}
			spans = append(spans, itemSpan{b: f.b})
		}
	}
	return data, spans, nil
}

// vectorLength counts the vector components of the IndexItem message b.
func vectorLength(b []byte) (int, error) {
	floats := 0
	for len(b) > 0 {
		f, n, err := nextField(b)
		if err != nil {
			return 0, err
		}
		b = b[n:]
		switch {
		case f.is(fieldItemVector, protowire.BytesType):
			if len(f.b)%4 != 0 {
				return 0, fmt.Errorf("vector: %w", errPackedLength)
			}
			floats += len(f.b) / 4
		case f.is(fieldItemVector, protowire.Fixed32Type):
			floats++
		}
	}
	return floats, nil
}

// minItemsPerWorker is the smallest share of items worth a goroutine.
const minItemsPerWorker = 4096

// decodeItems decodes the items of spans into items and returns the
// vector arena when all vectors have one length (nil otherwise). The
// message holds at most maxFloats vector components (4 bytes each).
//
// Vectors almost always share their length, so the arena is sized from
// the first item's vector, each item's row fixed at i*d, and the items
// decoded straight away, with no pass counting every item's components
// first. If an item's vector turns out to have another length, the items
// are decoded again after that count, each vector placed after the
// previous one. A first vector too long for the message to hold one as
// long per item goes straight to that count, so that the arena is never
// larger than the message allows.
func decodeItems(items []core.IndexItem, spans []itemSpan, maxFloats int) ([]float32, error) {
	if len(spans) == 0 {
		return []float32{}, nil
	}
	d, err := vectorLength(spans[0].b)
	if err != nil {
		return nil, fmt.Errorf("items[0]: %w", err)
	}
	if d == 0 || len(spans) <= maxFloats/d {
		for i := range spans {
			spans[i].float = i * d
		}
		arena := make([]float32, len(spans)*d, core.ArenaRoom(len(spans))*d)
		err := decodeRuns(items, spans, arena)
		if !errors.Is(err, errVectorLength) {
			if err != nil {
				return nil, err
			}
			return arena, nil
		}
	}
	floats := 0
	for i := range spans {
		spans[i].float = floats
		n, err := vectorLength(spans[i].b)
		if err != nil {
			return nil, fmt.Errorf("items[%d]: %w", i, err)
		}
		floats += n
	}
	return nil, decodeRuns(items, spans, make([]float32, floats))
}

// decodeRuns decodes the items of spans into items, their vectors into
// arena, splitting the work over up to GOMAXPROCS goroutines for large
// indexes. Each worker owns a contiguous run of items and of the arena. On
// failure it returns the error of the first bad item.
func decodeRuns(items []core.IndexItem, spans []itemSpan, arena []float32) error {
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

// decodeRun decodes items[lo:hi]. Item i's vector must fill
// arena[spans[i].float:spans[i+1].float] exactly.
func decodeRun(items []core.IndexItem, spans []itemSpan, arena []float32, lo, hi int) error {
	d := indexDecoder{arena: arena, in: newInterner()}
	for i := lo; i < hi; i++ {
		end := len(arena)
		if i+1 < len(spans) {
			end = spans[i+1].float
		}
		it, err := d.item(spans[i].b, spans[i].float, end)
		if err != nil {
			return fmt.Errorf("items[%d]: %w", i, err)
		}
		items[i] = it
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
	arena []float32
	pos   int // the next component's offset
	in    *interner
}

// errVectorLength means an item's vector does not fill its place in the
// arena exactly: another length than the first item's, when the arena was
// sized from that.
var errVectorLength = errors.New("vector length differs from the arena row")

// item decodes one IndexItem message, its vector into arena[start:end].
//
// An item's metadata map is shared with the earlier items whose metadata
// entries are the same bytes (up to maxSharedMetaLen of them, and
// maxInterned maps per decoder): an index whose items repeat a few
// combinations of values keeps a few maps, not one per item.
func (d *indexDecoder) item(b []byte, start, end int) (core.IndexItem, error) {
	var it core.IndexItem
	shared := false // it.Metadata may be another item's too
	d.pos = start
	for off := 0; off < len(b); {
		f, n, err := nextField(b[off:])
		if err != nil {
			return core.IndexItem{}, err
		}
		first := off
		off += n
		switch {
		case f.is(fieldItemMetadata, protowire.BytesType) && it.Metadata == nil:
			// The first entry: the run of entries it starts is decoded
			// as a whole, or shared.
			for off < len(b) {
				g, m, err := nextField(b[off:])
				if err != nil || !g.is(fieldItemMetadata, protowire.BytesType) {
					break
				}
				off += m
			}
			run := b[first:off]
			if m, ok := d.in.metas[string(run)]; ok {
				it.Metadata, shared = m, true
				continue
			}
			m, err := d.metadataRun(run)
			if err != nil {
				return core.IndexItem{}, fmt.Errorf("metadata: %w", err)
			}
			it.Metadata = m
			if len(run) <= maxSharedMetaLen && len(d.in.metas) < maxInterned {
				d.in.metas[string(run)] = m
				shared = true
			}
		case f.is(fieldItemMetadata, protowire.BytesType):
			key, value, err := d.metadataEntry(f.b)
			if err != nil {
				return core.IndexItem{}, fmt.Errorf("metadata: %w", err)
			}
			if shared {
				// More entries after other fields: this item's map is
				// its own from here on.
				it.Metadata, shared = maps.Clone(it.Metadata), false
			}
			it.Metadata[key] = value
		case f.is(fieldItemID, protowire.BytesType):
			it.ID = d.in.id(f.b)
		case f.is(fieldItemVector, protowire.BytesType):
			if len(f.b)%4 != 0 {
				return core.IndexItem{}, fmt.Errorf("vector: %w", errPackedLength)
			}
			k := len(f.b) / 4
			if d.pos+k > end {
				return core.IndexItem{}, errVectorLength
			}
			decodeFloats(d.arena[d.pos:d.pos+k], f.b)
			d.pos += k
		case f.is(fieldItemVector, protowire.Fixed32Type):
			if d.pos >= end {
				return core.IndexItem{}, errVectorLength
			}
			d.arena[d.pos] = finite32(uint32(f.u))
			d.pos++
		case f.is(fieldItemNorm, protowire.Fixed64Type):
			it.Norm = finite64(math.Float64frombits(f.u))
		case f.is(fieldItemMetadataFile, protowire.BytesType):
			it.MetadataFile = text(f.b)
		}
	}
	if d.pos != end {
		return core.IndexItem{}, errVectorLength
	}
	if end > start {
		it.Vector = d.arena[start:end:end]
	}
	if it.Metadata == nil {
		// One empty map for every item without metadata, shared as the
		// maps of equal entries are: a million items without metadata
		// would otherwise hold a million maps (46 MB).
		it.Metadata = d.in.empty()
	}
	return it, nil
}

// metadataRun decodes a run of encoded metadata entries into a new map.
func (d *indexDecoder) metadataRun(run []byte) (core.Metadata, error) {
	m := make(core.Metadata, 4)
	for len(run) > 0 {
		f, n, err := nextField(run)
		if err != nil {
			return nil, err
		}
		run = run[n:]
		key, value, err := d.metadataEntry(f.b)
		if err != nil {
			return nil, err
		}
		m[key] = value
	}
	return m, nil
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
