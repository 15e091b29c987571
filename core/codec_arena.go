package core

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
	// lengths differ). The codec must not keep or reuse arena.
	DeserializeIndexArena(b []byte) (IndexData, []float32, error)
}
