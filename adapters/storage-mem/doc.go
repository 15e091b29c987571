// Package storagemem is the in-memory [core.FileStorage] under the name
// Vectra's users know: [VirtualFileStorage], made by [New], for tests, the
// browser (GOOS=js) and WASI, and any index that need not outlive the
// process.
//
// The storage is [core.MemoryStorage], whose documentation gives its rules:
// normalised paths, the two root folders "" and "/", parent folders that
// must exist, recursive DeleteFolder, sorted listings, a lock per folder and
// a version per file (so several LocalIndex values over one storage share a
// folder as processes share one on disk). This package runs the storage
// conformance suite over it, with the cases of Vectra 0.15's
// VirtualFileStorage tests that the suite does not state.
package storagemem
