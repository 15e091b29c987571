// Package split is the pure part of Folio's text splitter: Vectra's
// recursive splitting along separators, with the separator tables per
// document type, token windows and positions as UTF-16 offsets that never
// drift. core.TextSplitter validates its configuration and delegates here.
//
// # Concurrency
//
// A Splitter is safe for concurrent use if its Tokenizer is.
//
// # Errors
//
// Nothing here fails: the configuration is validated by core.
package split
