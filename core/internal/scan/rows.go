// Package scan is the engine's kernel driver: it scores a query vector
// against a snapshot's rows (Rows), every row or those a filter selects
// (Selection), exactly or through int8 codes (Codes), on up to GOMAXPROCS
// goroutines, and returns the best rows (package topk). Batch answers many
// unfiltered queries in one pass over the rows.
package scan

// Rows are the vectors of a snapshot as a scan reads them: one row-major
// arena when every vector has the same length, else one slice per row
// (Mixed, written by another tool), with each row's scoring scale.
//
// The first rows may be read in place from a mapped file (Head): then
// Arena holds the rows after them.
type Rows struct {
	// Scale is the Euclidean length of each vector as held in memory (a
	// function of the vector alone, so equal vectors score equal whatever
	// path stored them); 0 marks a vector with no direction (zero, empty or
	// non-finite), which scores 0 and ranks after every other row.
	Scale []float64

	Mixed bool        // vectors of different lengths: Vecs is set, Arena is not
	Dim   int         // common vector length; -1 when there are no rows or Mixed
	Arena []float32   // rows×Dim values when !Mixed (after Head's rows)
	Vecs  [][]float32 // per-row vectors when Mixed

	// Head, when set (never when Mixed), holds the first len(Head)/Dim
	// rows, read-only: memory the engine never writes, such as a mapped
	// file. Pin is what keeps that memory valid: whatever holds these
	// Rows holds it.
	Head []float32
	Pin  any
	// Fetch, when set, reads count of Head's rows from row first into
	// dst (count×Dim values) without touching Head's memory: the exact
	// re-rank after a scan of codes reads its candidates through it, so
	// that the pages of a mapped file stay out of the process's memory.
	// It holds the same values as Head.
	Fetch func(dst []float32, first, count int) error

	// Gen, when set, is shared by the Rows of the states of an index that
	// extend one another: rows appended after the same first rows, which
	// keep their values and scales. A Shared pass over some of them serves
	// queries on the others (scoring the rows after it themselves).
	Gen *Lineage
}

// Lineage identifies Rows that extend one another (Rows.Gen).
type Lineage struct{ _ byte }

// HeadRows is the number of rows in Head.
func (r *Rows) HeadRows() int {
	if len(r.Head) == 0 || r.Dim <= 0 {
		return 0
	}
	return len(r.Head) / r.Dim
}

// InHead reports whether row i is read from Head.
func (r *Rows) InHead(i int) bool { return len(r.Head) > 0 && i*r.Dim < len(r.Head) }

// Vector returns row i. The slice shares memory with the rows; its
// capacity ends with the vector so an append by the caller cannot
// overwrite the next row.
func (r *Rows) Vector(i int) []float32 {
	if r.Mixed {
		return r.Vecs[i]
	}
	d := r.Dim
	if d == 0 {
		return []float32{}
	}
	if h := len(r.Head); h > 0 {
		if i*d < h {
			return r.Head[i*d : (i+1)*d : (i+1)*d]
		}
		i -= h / d
	}
	return r.Arena[i*d : (i+1)*d : (i+1)*d]
}

// Span returns the values of rows lo..hi-1 as one slice, and hi, when
// they are all in Head or all in Arena; else those of lo up to the end of
// Head, and that end. Callers loop until they reach hi. Not for Mixed
// rows.
func (r *Rows) Span(lo, hi int) ([]float32, int) {
	d := r.Dim
	h := r.HeadRows()
	if lo < h {
		end := min(hi, h)
		return r.Head[lo*d : end*d], end
	}
	return r.Arena[(lo-h)*d : (hi-h)*d], hi
}
