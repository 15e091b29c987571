// Package jsvalue is JavaScript's value semantics that Folio keeps to stay
// file-compatible with Vectra 0.15, a Node.js library: how JavaScript
// writes numbers (Number.prototype.toString and JSON.stringify), how
// JSON.stringify quotes strings, how Number() reads a string, which
// characters are white space, and strings as UTF-16 code units (their
// length, substrings and default sort order). Core, both codecs and the
// codec conformance suite use it, so they agree byte for byte.
//
// # Invalid UTF-8
//
// A JavaScript string cannot hold invalid UTF-8: Node.js reads each
// invalid byte of a UTF-8 file as U+FFFD. Every function here treats Go
// strings the same way — each byte that is not part of a valid UTF-8
// sequence is the character U+FFFD (one UTF-16 code unit) — so a string
// with invalid bytes is written, measured, compared and cut as the string
// Vectra would have read.
//
// # Concurrency
//
// Every function is pure and safe for concurrent use.
//
// # Errors
//
// Nothing here fails: values that JavaScript cannot represent have the
// results JavaScript gives them (NaN, "null", "[object Object]").
package jsvalue
