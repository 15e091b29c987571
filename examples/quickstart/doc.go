// Command quickstart is Folio's first example (make demo): it creates an
// index folder, inserts a few hundred items with metadata in one batch,
// and runs unfiltered and filtered queries.
//
// Vectors come from embedhash, a dependency-free model that hashes words
// into dimensions: it matches words, not meaning, which is enough to show
// the engine at work offline.
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
