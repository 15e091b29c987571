package core

import (
	"io"
)

// IndexCodec turns index data, document catalogs and metadata into bytes and
// back. Decoders return an error wrapping [ErrCorrupt] for bytes they cannot
// decode, and never panic.
//
// Implementations must be safe for concurrent use.
type IndexCodec interface {
	// Extension is the file extension with its dot: ".json", ".pb".
	Extension() string
	SerializeIndex(IndexData) ([]byte, error)
	DeserializeIndex([]byte) (IndexData, error)
	SerializeCatalog(DocumentCatalog) ([]byte, error)
	DeserializeCatalog([]byte) (DocumentCatalog, error)
	SerializeMetadata(Metadata) ([]byte, error)
	DeserializeMetadata([]byte) (Metadata, error)
}

// VectorArenaDecoder is an optional capability of an IndexCodec (checked by
// type assertion): a decoder that places every item's vector, one after
// another in item order, in one array. A LocalIndex opening such a file
// adopts that array as its vector arena instead of copying every vector,
// which halves the memory an open needs and saves a pass over the vectors.
type VectorArenaDecoder interface {
	// DeserializeIndexArena is DeserializeIndex that also returns the array
	// the vectors live in: when every vector has length d, items[i].Vector
	// must be arena[i*d:(i+1)*d] (the same memory, capacity may be
	// clipped) and len(arena) must be len(items)*d. The engine checks this
	// and copies the vectors when it does not hold (for example when the
	// lengths differ). The codec must not keep or reuse arena. The engine
	// owns arena's capacity beyond its length too and appends the vectors
	// of later inserts there, so a codec that leaves room there (ArenaRoom
	// rows; memory never written is never made resident on most systems)
	// spares the first commits after an open a copy of every vector.
	DeserializeIndexArena(b []byte) (IndexData, []float32, error)
}

// IndexStreamDecoder is an optional capability of an IndexCodec (checked
// by type assertion): decoding an index file from a stream.
type IndexStreamDecoder interface {
	// DecodeIndexFrom reads an index file from r and returns what
	// DeserializeIndexArena returns for its bytes (see
	// [VectorArenaDecoder]). size is the file's length when known, else
	// -1. It reads in bounded pieces: besides what it returns, it holds
	// about one item's bytes at a time. Bytes it cannot decode are an
	// error wrapping [ErrCorrupt]; an error of r is returned wrapped.
	DecodeIndexFrom(r io.Reader, size int64) (IndexData, []float32, error)
}

// IndexStreamEncoder is an optional capability of an IndexCodec (checked
// by type assertion): encoding an index file into a stream.
type IndexStreamEncoder interface {
	// EncodeIndexTo writes to w exactly the bytes SerializeIndex returns
	// for the index src describes, and fails where it fails (the error
	// may come after some bytes are written). Besides small buffers it
	// holds a bounded number of items' bytes at a time, however many
	// items src has.
	EncodeIndexTo(w io.Writer, src IndexSource) error
}

// IndexSource is an index file's content as an [IndexStreamEncoder] reads
// it: the items one at a time instead of in a slice.
type IndexSource struct {
	Version        int
	MetadataConfig MetadataConfig
	// Len is the number of items.
	Len int
	// Item returns item i, 0 ≤ i < Len. It may be called from several
	// goroutines at once; the item is read, never changed.
	Item func(i int) IndexItem
}

// Data returns the content of src as IndexData, its items in one slice.
func (src IndexSource) Data() IndexData {
	items := make([]IndexItem, src.Len)
	for i := range items {
		items[i] = src.Item(i)
	}
	return IndexData{Version: src.Version, MetadataConfig: src.MetadataConfig, Items: items}
}

// ArenaRoom is the capacity, in vectors, that a [VectorArenaDecoder] or an
// [IndexStreamDecoder] gives an arena of n vectors: n and an eighth more
// (256 at least), room for the inserts of the first commits after an open.
func ArenaRoom(n int) int { return n + max(n/8, 256) }
