// Package embedhash is a dependency-free lexical embeddings model: each word
// of a text is hashed into one dimension of a fixed-size vector.
//
// It matches words, not meaning: "car" and "automobile" are as far apart as
// "car" and "banana", and word order is ignored. Use it for offline demos,
// tests and reproducible fixtures; use a real embeddings model (hosted or
// ONNX) for semantic search.
//
// At 32 dimensions it is, bit for bit, the fake embeddings model that wrote
// Folio's Vectra 0.15 fixtures (testdata/vectra-0.15/README.md):
//
//  1. ASCII A–Z are lower-cased in the UTF-8 bytes; other bytes stay.
//  2. Words are maximal runs of bytes that are a–z, 0–9 or >= 0x80.
//  3. Each word's 32-bit FNV-1a hash h adds ±(1 + ((h>>8)&0xFF)/256) to
//     dimension h % D, negative when h's top bit is set.
//  4. The vector is divided by its Euclidean length; a text without words
//     gives [1, 0, …, 0].
//
// # Concurrency
//
// A *HashEmbeddings holds no mutable state and is safe for concurrent use.
//
// # Errors
//
// CreateEmbeddings fails only when its context is done: the error is a
// *core.EmbeddingsError with Status cancelled that wraps the context's error
// (context.Canceled or context.DeadlineExceeded), and the response carries
// the same Status and Message.
package embedhash
