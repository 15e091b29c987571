// Command docsearch is Folio's main demo (make demo): it indexes this
// repository's own documentation, README.md and the markdown under docs/,
// into a document index, asks it two questions, with and without BM25
// keyword matches, and prints the best passages of each document found,
// rendered within a token budget, with their scores.
//
// Everything runs offline: chunks and questions are embedded with
// embedhash, a dependency-free model that hashes words into dimensions (it
// matches words, not meaning), and tokens are counted with the embedded
// o200k_base tokenizer.
//
// # Concurrency
//
// The program runs its steps one after another on the main goroutine; the
// library parallelises queries internally.
//
// # Errors
//
// The first error ends the program: it is logged to standard error and the
// exit status is 1.
package main
