// Command openfootprint measures what opening an index costs: it builds an
// index of Gaussian unit vectors (a 10-valued "category" and a "year",
// both indexed) in a temporary folder, then, in a fresh process, opens it,
// answers one query, and reports the time taken and the process's resident
// memory (VmRSS) and peak (VmHWM) from /proc/self/status (Linux).
//
//	go run ./openfootprint -n 100000 -d 384 -codec protobuf
//
// # Concurrency
//
// The program runs its steps one after another on the main goroutine (the
// measuring run is a separate process); the library parallelises decoding
// and queries internally.
//
// # Errors
//
// The first error ends the program: it is logged to standard error and the
// exit status is 1.
package main
