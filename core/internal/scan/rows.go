// Package scan is the engine's kernel driver: it scores a query vector
// against a snapshot's rows (Rows), every row or those a filter selects
// (Selection), exactly or through int8 codes (Codes), on up to GOMAXPROCS
// goroutines, and returns the best rows (package topk). Batch answers many
// unfiltered queries in one pass over the rows.
package scan

// Rows are the vectors of a snapshot as a scan reads them: one row-major
// arena when every vector has the same length, else one slice per row
// (Mixed, written by another tool), with each row's scoring scale.
type Rows struct {
	// Scale is the Euclidean length of each vector as held in memory (a
	// function of the vector alone, so equal vectors score equal whatever
	// path stored them); 0 marks a vector with no direction (zero, empty or
	// non-finite), which scores 0 and ranks after every other row.
	Scale []float64

	Mixed bool        // vectors of different lengths: Vecs is set, Arena is not
	Dim   int         // common vector length; -1 when there are no rows or Mixed
	Arena []float32   // rows×Dim values when !Mixed
	Vecs  [][]float32 // per-row vectors when Mixed
}

// Vector returns row i. The slice shares memory with the rows; its
// capacity ends with the vector so an append by the caller cannot
// overwrite the next row.
func (r *Rows) Vector(i int) []float32 {
	if r.Mixed {
		return r.Vecs[i]
	}
	if r.Dim == 0 {
		return []float32{}
	}
	return r.Arena[i*r.Dim : (i+1)*r.Dim : (i+1)*r.Dim]
}
