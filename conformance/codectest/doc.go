// Package codectest is the conformance suite for [core.IndexCodec]
// implementations.
//
// Every codec runs it from its own tests:
//
//	func TestConformance(t *testing.T) {
//		codectest.Run(t, func(testing.TB) core.IndexCodec { return codecjson.New() }, codectest.Capabilities{
//			Float32Vectors:             true,
//			PreservesNonScalarMetadata: true,
//			// …
//		})
//	}
//
// [Run] gives every case its own subtest and a fresh codec from newCodec;
// [Check] runs the same cases outside `go test` and returns every violation,
// each prefixed with the rule it broke. [Capabilities] says what a codec
// claims beyond the rules every codec must keep, so the suite asks of a
// codec only what it promises. [RunBenchmarks] runs the benchmarks every
// codec shares, on the same index.
//
// The rules every codec keeps:
//   - Extension is non-empty and starts with ".".
//   - Index data, catalogs and metadata round-trip: the decoded value equals
//     the encoded one (version, metadata config, items in order with id,
//     metadata, vector, norm and metadata file; catalog version, count and
//     maps). Nil and empty are the same for items, vectors, metadata and the
//     uriToId/idToUri maps, because Vectra always writes them. An absent
//     metadata file stays "", a nil MetadataConfig.Indexed stays nil and a
//     nil URIToHash stays nil.
//   - Unicode ids, keys and values (including quotes, backslashes, control
//     characters, U+2028 and emoji), 1536-dimension vectors, and zero values
//     ("", 0, false) in metadata round-trip.
//   - Go numbers of any type in metadata are written as numbers and read back
//     as float64.
//   - Bytes that are not a valid encoding (every prefix of a valid encoding,
//     random byte flips, garbage) never make a decoder panic: it returns an
//     error wrapping [core.ErrCorrupt] or a value. A value decoded from such
//     bytes re-encodes, and decoding that again gives the same value.
//   - Decoded values do not share memory with the input bytes, and bytes a
//     Serialize method returned are not changed by later calls.
//   - The codec is safe for concurrent use.
//   - A *core.LocalIndex over the codec (and [core.MemoryStorage]) keeps its
//     items, side-car metadata and filtered query results when the folder is
//     reopened, after inserts, an upsert and a delete.
//
// # Concurrency
//
// [Run] and [Check] call the codec from several goroutines in one case (the
// concurrency rule); run the suite with -race. Run and Check themselves may be
// called concurrently.
//
// # Errors
//
// [Check] returns nil when the codec keeps every rule, otherwise the
// [errors.Join] of one error per violation, each starting with "codectest: " and the
// case name (the rule broken). A panic inside the codec is recovered and reported as a
// violation of the case that caused it.
package codectest
