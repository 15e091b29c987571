// Package reference holds small, plainly correct implementations of core's
// ports for tests: [Storage], an in-memory core.FileStorage (the role
// testing/fstest.MapFS plays for io/fs), and [Codec], an index codec on
// encoding/json. The conformance suites pair the adapter under test with
// them (a codec needs a storage to run a LocalIndex, a storage needs a
// codec), and adapter tests can use them instead of private copies.
//
// Neither is meant for production: Storage keeps everything in memory and
// Codec writes no Vectra-compatible format (use storage-mem and codec-json
// for those).
//
// # Concurrency
//
// Storage and Codec are safe for concurrent use by multiple goroutines.
//
// # Errors
//
// Storage's errors wrap fs.ErrNotExist, fs.ErrExist or
// core.ErrInvalidArgument as the FileStorage port asks, and a done context's
// error unchanged. Codec's decode errors wrap core.ErrCorrupt; its encode
// errors wrap core.ErrInvalidArgument.
package reference
