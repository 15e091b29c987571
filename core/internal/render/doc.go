// Package render is the pure part of rendering a document's matching chunks
// into passages, as Vectra 0.15's LocalDocumentResult does: packing every
// chunk in document order (Renderer.All), and the heat-map sections around
// the best chunks (Renderer.Best), over a Text addressed by UTF-16 offsets.
// core.LocalDocumentResult validates budgets, loads the text, reads chunk
// positions from metadata and delegates here.
//
// # Concurrency
//
// A Text is immutable and safe for concurrent use. A Renderer caches each
// chunk's text and tokens in the chunk: render one set of chunks from one
// goroutine at a time (LocalDocumentResult makes fresh chunks per call).
//
// # Errors
//
// Nothing here fails: budgets are validated by core.
package render
