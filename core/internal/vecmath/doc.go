// Package vecmath holds the dot-product kernels of the query scan.
//
// A query is one pass over an arena of float32 vectors; at 384 or more
// dimensions that pass is bound by memory bandwidth, not arithmetic. On
// amd64 CPUs with AVX2 and FMA (checked once, with CPUID, when the package
// is initialised) the kernels are assembly: DotMany reads its rows in
// memory order, one stream with a software prefetch 1 KiB ahead, and
// DotManyIdx (rows gathered by a filter) reads four rows at a time against
// one load of the query and prefetches the next four while it does;
// DotMany4 (a batched scan, rows already in cache) scores four queries
// against each row read once. All give a row bitwise the same dot product. Every other platform, and amd64 built with the purego tag, uses portable Go
// with several accumulators. Both sum in float32 in an order different from
// a plain loop, so results differ from it by a few units in the last place
// (the tests bound the error against a float64 reference).
//
// # Concurrency
//
// Every function is safe for concurrent use: none keeps state, and each
// writes only the out slice it is given. The engine splits the rows of one
// query across goroutines, each calling DotMany on its own row range and
// its own part of out.
//
// # Errors
//
// There are none. Lengths that do not fit (an arena shorter than len(out)
// rows, a row index out of range, out shorter than rows) are programming
// errors and panic like an out-of-range slice index.
package vecmath
