// Package reference holds [Codec], a small, plainly correct index codec on
// encoding/json for tests. The conformance suites pair the adapter under
// test with it and with [core.MemoryStorage], the in-memory storage (a codec
// needs a storage to run a LocalIndex, a storage needs a codec), and
// adapter tests can use them instead of private copies.
//
// Codec is not meant for production: it writes no Vectra-compatible format
// (use codec-json for that). It is safe for concurrent use by multiple
// goroutines. Its decode errors wrap core.ErrCorrupt; its encode errors wrap
// core.ErrInvalidArgument.
package reference
