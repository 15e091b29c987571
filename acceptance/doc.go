// Package acceptance holds Folio's acceptance tests, and nothing else:
// Vectra 0.15 compatibility against folders written by real Vectra
// (testdata/vectra-0.15), round trips through both codecs, migration, the
// SIGKILL test of index and document writers, hostile folders, and the
// benchmarks of docs/benchmarks.md. They use Folio only through its public
// API (the root package and the adapters), as a user would.
//
// # Concurrency
//
// Nothing here is used concurrently; the tests run their own goroutines.
//
// # Errors
//
// Nothing here returns errors.
package acceptance
