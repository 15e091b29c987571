// Package codecjson is Folio's JSON codec: it reads and writes index
// folders in the format of Vectra 0.15's JsonCodec, so that a folder written
// by either opens in the other.
//
// # Format
//
// Files are compact JSON, UTF-8, without a trailing newline, in Vectra's
// shapes and key order:
//
//	index.json    {"version":1,"metadata_config":{},"items":[{"id":…,"metadata":{…},"vector":[…],"norm":…,"metadataFile":"…"}]}
//	catalog.json  {"version":1,"count":2,"uriToId":{…},"idToUri":{…},"uriToHash":{…}}
//	<uuid>.json   {…}  (side-car and document metadata)
//
// metadata_config is {} when MetadataConfig.Indexed is nil and
// {"indexed":[…]} otherwise (also when empty); metadataFile is left out
// when ""; uriToHash is left out when URIToHash is nil.
//
// # Compatibility decisions
//
// What Folio writes is what Vectra's JSON.stringify would write for the
// same values, with these differences and choices:
//
//   - Numbers follow JSON.stringify: the shortest decimal that reads back
//     as the same value, integers without ".0", exponent form below 1e-6 and
//     from 1e21 on ("1e-7", "1e+21"), -0 as 0. Vector components are
//     float32 in Folio, so they are written as the shortest decimal that
//     reads back as the same float32 (Vectra writes float64 text). Vectors
//     are read as the float32 nearest to the decimal written, so Folio's
//     own files round-trip exactly; for Vectra's float64 text this is the
//     float32 of the float64 JavaScript reads, except in the rare case where
//     that float64 lies exactly halfway between two float32 values.
//   - NaN and ±Inf in a vector, a norm or a metadata number are an error
//     wrapping core.ErrInvalidArgument (JSON.stringify would write null).
//   - Strings are escaped as JSON.stringify escapes them: `"`, `\`, the
//     control characters (\b \f \n \r \t, others as \u00xx); not <, >, &,
//     U+2028 or U+2029. Go strings may hold invalid UTF-8, JavaScript strings
//     cannot: each invalid byte is written as U+FFFD, the character Node.js
//     reads in its place. Reading, invalid UTF-8 and lone surrogate escapes
//     become U+FFFD.
//   - Object keys of maps (metadata, catalog maps): Vectra writes insertion
//     order, which a Go map does not keep. Folio writes keys that are array
//     indexes ("0", "1", …) first in numeric order, then the rest in byte
//     order: deterministic, and the order in which JavaScript lists the keys
//     of the parsed object, so Vectra rewriting a Folio file keeps it.
//     The keys of the fixed objects (index, item, catalog) are in Vectra's
//     order.
//   - Metadata values: strings, bools and nil as themselves; every Go
//     number as a float64; []any and map[string]any recursively; any other
//     Go value as encoding/json marshals it, re-read as plain JSON values.
//     Reading gives string, float64, bool, nil, []any and map[string]any.
//   - Reading accepts what JSON.parse accepts (white space, any key order,
//     a repeated key: the last wins) and skips unknown keys. null reads as
//     the zero value of a field; null inside a vector reads as 0 (Vectra
//     computes null*x as 0). A version or count must be an integer of at
//     most 2^53. A number beyond float64 range (beyond float32 range in a
//     vector) is corrupt, as is anything after the top-level value. A
//     metadata file holding null reads as nil metadata.
//
// # Speed
//
// A compact index file (as Vectra and Folio write it) is cut into items
// at their `},{"id":` separators and the items are decoded in parallel, up
// to GOMAXPROCS goroutines; vectors are parsed by a dedicated number parser
// rather than token by token, each straight into its row of one array
// sized from the first vector, which DeserializeIndexArena hands to the
// engine ([core.VectorArenaDecoder]) so that opening an index does not
// copy the vectors. Other layouts are walked by the
// github.com/go-json-experiment/json/jsontext decoder, which also gives the
// error for invalid files. Large indexes are encoded in parallel too, each
// goroutine into its own buffer, joined into one buffer of the exact size.
//
// # Concurrency
//
// A [JsonCodec] holds no state; it is safe for concurrent use, and the
// zero value works like [New]'s. SerializeIndex, DeserializeIndex and
// DeserializeIndexArena may use up to GOMAXPROCS goroutines for one large
// index and return only when they have finished.
//
// # Errors
//
// Deserialize methods return an error wrapping core.ErrCorrupt for bytes
// that are not such a file, naming the field or item at fault (for
// example `codecjson: deserialize index: corrupt data: "items": items[3]:
// "vector": [7]: got "\"x\"]}", want a number`); they never panic.
// Serialize methods return an error wrapping core.ErrInvalidArgument for
// values JSON cannot hold (NaN, ±Inf, channels, functions).
package codecjson
