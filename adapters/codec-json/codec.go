package codecjson

import (
	"fmt"

	"github.com/foliovec/folio/core"
)

// JsonCodec reads and writes index folders in Vectra's JSON format. It is
// stateless: the zero value is ready to use, and one value may be shared.
type JsonCodec struct{}

var (
	_ core.IndexCodec         = (*JsonCodec)(nil)
	_ core.VectorArenaDecoder = (*JsonCodec)(nil)
)

// New returns the JSON codec.
func New() *JsonCodec {
	return &JsonCodec{}
}

// Extension returns ".json".
func (*JsonCodec) Extension() string {
	return ".json"
}

// SerializeIndex writes d as Vectra's index.json.
func (*JsonCodec) SerializeIndex(d core.IndexData) ([]byte, error) {
	b, err := encodeIndex(d)
	if err != nil {
		return nil, fmt.Errorf("codecjson: serialize index: %w", err)
	}
	return b, nil
}

// DeserializeIndex reads an index.json written by Vectra or Folio. When
// the vectors have one length, they share one allocation, each capped so
// that appending to one never writes into another.
func (c *JsonCodec) DeserializeIndex(b []byte) (core.IndexData, error) {
	d, _, err := c.DeserializeIndexArena(b)
	return d, err
}

// DeserializeIndexArena is DeserializeIndex that also returns the
// allocation the vectors share (see [core.VectorArenaDecoder]): when every
// item's vector has the same length d, item i's vector is
// arena[i*d:(i+1)*d:(i+1)*d] and len(arena) is len(items)*d. When the
// lengths differ the arena is nil; it is never nil otherwise, not even
// for an index without items. The codec keeps no reference to it.
func (*JsonCodec) DeserializeIndexArena(b []byte) (core.IndexData, []float32, error) {
	d, arena, err := decodeIndex(b)
	if err != nil {
		return core.IndexData{}, nil, corrupt("deserialize index", err)
	}
	return d, arena, nil
}

// SerializeCatalog writes c as Vectra's catalog.json.
func (*JsonCodec) SerializeCatalog(c core.DocumentCatalog) ([]byte, error) {
	return appendCatalog(nil, c), nil
}

// DeserializeCatalog reads a catalog.json written by Vectra or Folio.
func (*JsonCodec) DeserializeCatalog(b []byte) (core.DocumentCatalog, error) {
	c, err := decodeCatalog(b)
	if err != nil {
		return core.DocumentCatalog{}, corrupt("deserialize catalog", err)
	}
	return c, nil
}

// SerializeMetadata writes m as a side-car or document metadata file.
func (*JsonCodec) SerializeMetadata(m core.Metadata) ([]byte, error) {
	b, err := appendObject(nil, m)
	if err != nil {
		return nil, fmt.Errorf("codecjson: serialize metadata: %w", err)
	}
	return b, nil
}

// DeserializeMetadata reads a side-car or document metadata file.
func (*JsonCodec) DeserializeMetadata(b []byte) (core.Metadata, error) {
	m, err := decodeMetadata(b)
	if err != nil {
		return nil, corrupt("deserialize metadata", err)
	}
	return m, nil
}

// corrupt wraps a decoding error in core.ErrCorrupt.
func corrupt(op string, err error) error {
	return fmt.Errorf("codecjson: %s: %w: %w", op, core.ErrCorrupt, err)
}
