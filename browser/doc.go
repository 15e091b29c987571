// Package browser is Folio's entry point for web pages (GOOS=js
// GOARCH=wasm), as the root package folio is for servers: it wires the
// browser defaults — indexes kept in the page's IndexedDB
// (adapters/storage-idb, in Vectra's database layout), the JSON codec and
// the o200k_base tokenizer — and returns core's types. Web pages are read
// with adapters/fetch-browser; embeddings come from adapters/embed-hosted
// (a hosted API, whose key the page then holds) or adapters/embed-hash
// (offline).
//
// Nothing here or in what it imports touches the operating system's file
// system, watches folders, loads ONNX models or serves gRPC: a test checks
// the package's js/wasm dependencies. It holds no logic of its own; on
// other platforms the package is empty.
//
// # Concurrency
//
// The functions here are safe for concurrent use; the values they return
// document their own guarantees.
//
// # Errors
//
// Errors from package core and the adapters pass through unchanged; match
// them with errors.Is against core's sentinels. NewLocalDocumentIndex with
// an empty FolderPath is core.ErrInvalidArgument.
package browser
