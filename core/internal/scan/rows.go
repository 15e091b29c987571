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
// The first rows may be read in place from mapped files (Head, one Part a
// file): then Arena holds the rows after them.
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

	// Head, when set (never when Mixed), holds the first rows, read-only,
	// in parts one after another: memory the engine never writes, such as
	// mapped files. Pin is what keeps that memory valid: whatever holds
	// these Rows holds it.
	Head []Part
	Pin  any

	// Gen, when set, is shared by the Rows of the states of an index that
	// extend one another: rows appended after the same first rows, which
	// keep their values and scales. A Shared pass over some of them serves
	// queries on the others (scoring the rows after it themselves).
	Gen *Lineage
}

// Part is rows of Rows.Head read in place from one file.
type Part struct {
	Vals []float32 // rows×Dim values, read-only
	// Fetch, when set, reads count of the part's rows from its row first
	// into dst (count×Dim values) without touching Vals' memory: the
	// exact re-rank after a scan of codes reads its candidates through
	// it, so that the pages of a mapped file stay out of the process's
	// memory. It reads the same values as Vals holds.
	Fetch func(dst []float32, first, count int) error
}

// Lineage identifies Rows that extend one another (Rows.Gen).
type Lineage struct{ _ byte }

// HeadRows is the number of rows in Head.
func (r *Rows) HeadRows() int {
	if len(r.Head) == 0 || r.Dim <= 0 {
		return 0
	}
	n := 0
	for _, p := range r.Head {
		n += len(p.Vals)
	}
	return n / r.Dim
}

// InHead reports whether row i is read from Head.
func (r *Rows) InHead(i int) bool { return i < r.HeadRows() }

// block returns the memory holding row i (a part of Head, or Arena) and
// the rows it holds, lo..hi-1; part is the index of the part, -1 for
// Arena. Not for Mixed rows.
func (r *Rows) block(i int) (vals []float32, lo, hi, part int) {
	d := r.Dim
	for k, p := range r.Head {
		n := len(p.Vals) / d
		if i < lo+n {
			return p.Vals, lo, lo + n, k
		}
		lo += n
	}
	return r.Arena, lo, lo + len(r.Arena)/max(d, 1), -1
}

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
	vals, lo := r.Arena, 0
	if len(r.Head) > 0 {
		vals, lo, _, _ = r.block(i)
	}
	i -= lo
	return vals[i*d : (i+1)*d : (i+1)*d]
}

// ReadVector copies row i into dst (Dim values): for a row of Head
// through its part's Fetch when it has one, so that the row's memory is
// not touched, else from memory. Not for Mixed rows.
func (r *Rows) ReadVector(dst []float32, i int) error {
	if len(r.Head) > 0 && !r.Mixed {
		if _, lo, _, k := r.block(i); k >= 0 && r.Head[k].Fetch != nil {
			return r.Head[k].Fetch(dst, i-lo, 1)
		}
	}
	copy(dst, r.Vector(i))
	return nil
}

// readSpan is Span reading rows of a part of Head that has a Fetch through
// it into buf (room for at least one row), as many as buf holds: the
// memory of a mapping is not touched. A failed read falls back to Span.
func (r *Rows) readSpan(buf []float32, lo, hi int) ([]float32, int) {
	if len(r.Head) > 0 {
		if _, first, end, k := r.block(lo); k >= 0 && r.Head[k].Fetch != nil {
			end = min(hi, end, lo+len(buf)/r.Dim)
			if r.Head[k].Fetch(buf[:(end-lo)*r.Dim], lo-first, end-lo) == nil {
				return buf[:(end-lo)*r.Dim], end
			}
		}
	}
	return r.Span(lo, hi)
}

// Span returns the values of rows lo..hi-1 as one slice, and hi, when
// they are all in one part of Head or all in Arena; else those of lo up to
// the end of its part, and that end. Callers loop until they reach hi. Not
// for Mixed rows.
func (r *Rows) Span(lo, hi int) ([]float32, int) {
	d := r.Dim
	if len(r.Head) == 0 {
		return r.Arena[lo*d : hi*d], hi
	}
	vals, first, end, _ := r.block(lo)
	end = min(hi, end)
	return vals[(lo-first)*d : (end-first)*d], end
}
