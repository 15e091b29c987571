package codecpb

import (
	"errors"
	"fmt"
	"math"

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
	items, floats, err := countIndex(b)
	if err != nil {
		return core.IndexData{}, corrupt(op, err)
	}
	d := indexDecoder{arena: make([]float32, floats), in: newInterner()}
	data := core.IndexData{
		MetadataConfig: core.MetadataConfig{Indexed: []string{}},
		Items:          make([]core.IndexItem, 0, items),
	}
	for len(b) > 0 {
		f, n, err := nextField(b)
		if err != nil {
			return core.IndexData{}, corrupt(op, err)
		}
		b = b[n:]
		switch {
		case f.is(fieldIndexVersion, protowire.VarintType):
			data.Version = int(uint32(f.u))
		case f.is(fieldIndexMetadataConfig, protowire.BytesType):
			// A message field that occurs twice is merged: the lists join.
			data.MetadataConfig.Indexed, err = appendIndexed(data.MetadataConfig.Indexed, f.b)
			if err != nil {
				return core.IndexData{}, corrupt(op+": metadata_config", err)
			}
		case f.is(fieldIndexItems, protowire.BytesType):
			item, err := d.item(f.b)
			if err != nil {
				return core.IndexData{}, corrupt(fmt.Sprintf("%s: items[%d]", op, len(data.Items)), err)
			}
			data.Items = append(data.Items, item)
		}
	}
	return data, nil
}

// countIndex walks an IndexData message once to count its items and the
// vector components of all of them, so the decoder allocates each once.
func countIndex(b []byte) (items, floats int, err error) {
	for len(b) > 0 {
		f, n, err := nextField(b)
		if err != nil {
			return 0, 0, err
		}
		b = b[n:]
		if !f.is(fieldIndexItems, protowire.BytesType) {
			continue
		}
		items++
		for ib := f.b; len(ib) > 0; {
			g, m, err := nextField(ib)
			if err != nil {
				return 0, 0, fmt.Errorf("items[%d]: %w", items-1, err)
			}
			ib = ib[m:]
			switch {
			case g.is(fieldItemVector, protowire.BytesType):
				if len(g.b)%4 != 0 {
					return 0, 0, fmt.Errorf("items[%d]: vector: %w", items-1, errPackedLength)
				}
				floats += len(g.b) / 4
			case g.is(fieldItemVector, protowire.Fixed32Type):
				floats++
			}
		}
	}
	return items, floats, nil
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

// indexDecoder decodes the items of one index into a shared vector arena.
type indexDecoder struct {
	arena []float32
	pos   int // arena[:pos] is filled
	in    *interner
}

// errArena means countIndex and item disagree; it cannot happen unless
// they parse differently.
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
