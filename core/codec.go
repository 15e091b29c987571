package core

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
