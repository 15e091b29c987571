package codecpb

import (
	"fmt"
	"io"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/foliovec/folio/core"
	"google.golang.org/protobuf/encoding/protowire"
)

// SerializeIndex encodes d as an IndexData message, byte for byte what
// google.golang.org/protobuf's deterministic marshalling of the generated
// message gives: fields in number order, zero scalars omitted,
// metadata_config always present (possibly empty), map entries in sorted key
// order, vectors packed as float32, metadata_file only when not "".
//
// It fails with an error wrapping core.ErrInvalidArgument on a version
// outside 0…4294967295, a NaN or infinite vector component, norm or metadata
// number, or a string that is not valid UTF-8.
func (*ProtobufCodec) SerializeIndex(d core.IndexData) ([]byte, error) {
	const op = "encode index"
	if d.Version < 0 || uint64(d.Version) > math.MaxUint32 {
		return nil, invalid(op, fmt.Sprintf("version %d is outside 0…4294967295", d.Version))
	}
	for _, k := range d.MetadataConfig.Indexed {
		if !utf8.ValidString(k) {
			return nil, invalid(op, fmt.Sprintf("metadata_config.indexed %q is not valid UTF-8", k))
		}
	}
	configSize := 0
	for _, k := range d.MetadataConfig.Indexed {
		configSize += protowire.SizeTag(fieldConfigIndexed) + protowire.SizeBytes(len(k))
	}
	total := protowire.SizeTag(fieldIndexMetadataConfig) + protowire.SizeBytes(configSize)
	if d.Version != 0 {
		total += protowire.SizeTag(fieldIndexVersion) + protowire.SizeVarint(uint64(d.Version))
	}
	sizes := make([]int, len(d.Items))
	for i := range d.Items {
		sizes[i] = itemSize(&d.Items[i])
		total += protowire.SizeTag(fieldIndexItems) + protowire.SizeBytes(sizes[i])
	}

	b, err := appendIndexHead(make([]byte, 0, total), d.Version, d.MetadataConfig.Indexed)
	if err != nil {
		return nil, invalid(op, err.Error())
	}
	var keys []string // reused across items
	for i := range d.Items {
		b = protowire.AppendTag(b, fieldIndexItems, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizes[i]))
		if b, keys, err = appendItem(b, &d.Items[i], keys); err != nil {
			return nil, invalid(op, fmt.Sprintf("item %q: %v", d.Items[i].ID, err))
		}
	}
	return b, nil
}

// EncodeIndexTo writes to w the bytes SerializeIndex returns for the index
// src describes, one item at a time (core.IndexStreamEncoder): besides one
// item's bytes it holds nothing of the file. It fails where SerializeIndex
// fails, possibly after writing the items before.
func (*ProtobufCodec) EncodeIndexTo(w io.Writer, src core.IndexSource) error {
	const op = "encode index"
	if src.Version < 0 || uint64(src.Version) > math.MaxUint32 {
		return invalid(op, fmt.Sprintf("version %d is outside 0…4294967295", src.Version))
	}
	b, err := appendIndexHead(nil, src.Version, src.MetadataConfig.Indexed)
	if err != nil {
		return invalid(op, err.Error())
	}
	var keys []string // reused across items
	for i := range src.Len {
		it := src.Item(i)
		b = protowire.AppendTag(b, fieldIndexItems, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(itemSize(&it)))
		if b, keys, err = appendItem(b, &it, keys); err != nil {
			return invalid(op, fmt.Sprintf("item %q: %v", it.ID, err))
		}
		if len(b) >= streamChunk {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	if len(b) > 0 {
		_, err = w.Write(b)
	}
	return err
}

// streamChunk is how much EncodeIndexTo gathers before it writes.
const streamChunk = 256 << 10

// appendIndexHead appends the fields before the items: the version (when
// not 0) and metadata_config.
func appendIndexHead(b []byte, version int, indexed []string) ([]byte, error) {
	configSize := 0
	for _, k := range indexed {
		if !utf8.ValidString(k) {
			return nil, fmt.Errorf("metadata_config.indexed %q is not valid UTF-8", k)
		}
		configSize += protowire.SizeTag(fieldConfigIndexed) + protowire.SizeBytes(len(k))
	}
	if version != 0 {
		b = protowire.AppendTag(b, fieldIndexVersion, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(version))
	}
	b = protowire.AppendTag(b, fieldIndexMetadataConfig, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(configSize))
	for _, k := range indexed {
		b = protowire.AppendTag(b, fieldConfigIndexed, protowire.BytesType)
		b = protowire.AppendString(b, k)
	}
	return b, nil
}

// itemSize is the encoded size of it's IndexItem message.
func itemSize(it *core.IndexItem) int {
	n := 0
	if it.ID != "" {
		n += protowire.SizeTag(fieldItemID) + protowire.SizeBytes(len(it.ID))
	}
	for k, v := range it.Metadata {
		pv, _ := toPBValue(v)
		n += protowire.SizeTag(fieldItemMetadata) + protowire.SizeBytes(entrySize(k, pv))
	}
	if len(it.Vector) > 0 {
		n += protowire.SizeTag(fieldItemVector) + protowire.SizeBytes(4*len(it.Vector))
	}
	if hasNorm(it.Norm) {
		n += protowire.SizeTag(fieldItemNorm) + protowire.SizeFixed64()
	}
	if it.MetadataFile != "" {
		n += protowire.SizeTag(fieldItemMetadataFile) + protowire.SizeBytes(len(it.MetadataFile))
	}
	return n
}

// hasNorm reports whether a norm is written: proto3 omits +0 only.
func hasNorm(norm float64) bool { return norm != 0 || math.Signbit(norm) }

// entrySize is the encoded size of one metadata map entry. Map entries
// always carry both key and value.
func entrySize(key string, v pbValue) int {
	return protowire.SizeTag(fieldMapKey) + protowire.SizeBytes(len(key)) +
		protowire.SizeTag(fieldMapValue) + protowire.SizeBytes(v.size())
}

// appendItem appends it's IndexItem fields, validating as it goes; keys is
// scratch space, returned for reuse.
func appendItem(b []byte, it *core.IndexItem, keys []string) ([]byte, []string, error) {
	if it.ID != "" {
		if !utf8.ValidString(it.ID) {
			return nil, keys, fmt.Errorf("id is not valid UTF-8")
		}
		b = protowire.AppendTag(b, fieldItemID, protowire.BytesType)
		b = protowire.AppendString(b, it.ID)
	}
	keys = keys[:0]
	for k := range it.Metadata {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		pv, ok := toPBValue(it.Metadata[k])
		switch {
		case !ok:
			return nil, keys, fmt.Errorf("metadata %q: number %v is not finite", k, it.Metadata[k])
		case !utf8.ValidString(k):
			return nil, keys, fmt.Errorf("metadata key %q is not valid UTF-8", k)
		case !utf8.ValidString(pv.str):
			return nil, keys, fmt.Errorf("metadata %q: string is not valid UTF-8", k)
		}
		b = protowire.AppendTag(b, fieldItemMetadata, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(entrySize(k, pv)))
		b = protowire.AppendTag(b, fieldMapKey, protowire.BytesType)
		b = protowire.AppendString(b, k)
		b = protowire.AppendTag(b, fieldMapValue, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(pv.size()))
		b = pv.appendTo(b)
	}
	if len(it.Vector) > 0 {
		b = protowire.AppendTag(b, fieldItemVector, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(4*len(it.Vector)))
		var bad int
		if b, bad = appendFloats(b, it.Vector); bad >= 0 {
			return nil, keys, fmt.Errorf("vector[%d] is %v", bad, it.Vector[bad])
		}
	}
	if hasNorm(it.Norm) {
		if math.IsNaN(it.Norm) || math.IsInf(it.Norm, 0) {
			return nil, keys, fmt.Errorf("norm is %v", it.Norm)
		}
		b = protowire.AppendTag(b, fieldItemNorm, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, math.Float64bits(it.Norm))
	}
	if it.MetadataFile != "" {
		if !utf8.ValidString(it.MetadataFile) {
			return nil, keys, fmt.Errorf("metadataFile %q is not valid UTF-8", it.MetadataFile)
		}
		b = protowire.AppendTag(b, fieldItemMetadataFile, protowire.BytesType)
		b = protowire.AppendString(b, it.MetadataFile)
	}
	return b, keys, nil
}
