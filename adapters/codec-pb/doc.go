// Package codecpb is Folio's protobuf [core.IndexCodec]: it reads and writes
// the .pb files of Vectra 0.15 byte for byte.
//
// An index file (index.pb) and a catalog file (catalog.pb) are bare
// serialized protobuf messages, IndexData and DocumentCatalog, laid out as
// in internal/pb/index.proto: no magic bytes, no length prefix, no header.
// Vector components are stored as float32, so a float64 that is not a
// float32 loses precision on write; the norm is a double and is kept as
// given. Side-car item metadata and document metadata (<uuid>.pb,
// <documentId>.pb) hold JSON text despite their extension, as Vectra writes
// them.
//
// Metadata values inside an index item are a oneof of string, number and
// bool. Any Go number is written as a number; a value of another type (nil,
// a slice, a map) is written as a string holding what JavaScript's String()
// makes of it ("null", "a,b", "[object Object]"), as Vectra does. On read, a
// non-empty string wins, then a number other than 0 and NaN, then true;
// otherwise the stored case decides ("" for a string, 0 for a number, false
// for a bool) and a value with no case set reads as "".
//
// Map entries (item metadata, catalog maps) are written in sorted key order;
// Vectra writes them in JavaScript insertion order. Both orders decode to the
// same maps.
//
// The hot paths encode and decode the wire format directly with
// google.golang.org/protobuf/encoding/protowire; the generated types in
// internal/pb are the schema, and the tests check the hand-written codec
// against them byte for byte. The decoder places every vector in one
// array, row i at i×dimensions, and DeserializeIndexArena hands that array
// to the engine ([core.VectorArenaDecoder]), which adopts it instead of
// copying the vectors.
//
// # Concurrency
//
// A [ProtobufCodec] holds no state; it is safe for concurrent use.
// DeserializeIndex and DeserializeIndexArena decode the items of a large
// index (8192 items or more) on up to GOMAXPROCS goroutines, all finished
// when they return.
//
// # Errors
//
// Decoders return an error wrapping [core.ErrCorrupt] for bytes that are not
// a valid encoding, and never panic. They are lenient where Vectra's reader
// is: a string that is not valid UTF-8 reads with U+FFFD in place of each
// bad sequence, and NaN or ±Inf (vector components, norms, metadata
// numbers) read as 0, as the null that Vectra's JSON files hold for them
// does; so whatever a decoder returns, the encoder accepts.
// Encoders return an error wrapping [core.ErrInvalidArgument] for values the
// format cannot hold: NaN or ±Inf in a vector, a norm or a metadata number;
// a version or count outside 0…4294967295; a string field of the index or
// catalog that is not valid UTF-8 (protobuf strings must be). Side-car and
// document metadata are JSON text and follow package jsvalue's policy
// instead: each invalid UTF-8 byte is written as U+FFFD.
package codecpb
