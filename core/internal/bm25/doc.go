// Package bm25 is the pure part of Folio's keyword search: splitting text
// into terms (words, lowercased, English stop words out, ASCII words
// reduced to their Porter stem) and the Okapi BM25 score of a term in a
// chunk. The incremental keyword index that uses them is core's.
//
// # Concurrency
//
// Every function is pure and safe for concurrent use.
//
// # Errors
//
// Nothing here fails.
package bm25
