// Package scan is the engine's kernel driver: it scores a query vector
// against a snapshot's rows (Rows), every row or those a filter selects
// (Selection), exactly or through int8 codes (Codes), on up to GOMAXPROCS
// goroutines, and returns the best rows (package topk). Batch answers many
// unfiltered queries in one pass over the rows.
package scan

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/foliovec/folio/core/internal/vecmath"
)

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

// Part is rows of Rows.Head read in place from one file, or read from it
// when needed (Vals nil: a fetch-only part).
type Part struct {
	N    int       // rows
	Vals []float32 // N×Dim values, read-only; nil when the part is only fetched
	// Fetch, when set, reads count of the part's rows from its row first
	// into dst (count×Dim values) without touching Vals' memory: the
	// exact re-rank after a scan of codes reads its candidates through
	// it, so that the pages of a mapped file stay out of the process's
	// memory, or the rows out of memory altogether. It reads the same
	// values as Vals holds.
	Fetch func(ctx context.Context, dst []float32, first, count int) error
	// FetchRuns, when set, reads every run with one call, as Fetch reads
	// one: a storage far from its files serves them with a few requests
	// at once. The re-rank calls it instead of Fetch.
	FetchRuns func(ctx context.Context, runs []Run) error
}

// Run is one read of Part.FetchRuns: Count rows from row First into Dst
// (Count×Dim values).
type Run struct {
	Dst          []float32
	First, Count int
}

// fetchOnly reports whether the part's rows are only read through Fetch.
func (p *Part) fetchOnly() bool { return p.Vals == nil && p.N > 0 }

// Lineage identifies Rows that extend one another (Rows.Gen).
type Lineage struct{ _ byte }

// HeadRows is the number of rows in Head.
func (r *Rows) HeadRows() int {
	n := 0
	for _, p := range r.Head {
		n += p.N
	}
	return n
}

// InHead reports whether row i is read from Head.
func (r *Rows) InHead(i int) bool { return i < r.HeadRows() }

// FetchOnly reports whether some rows are only read through a part's
// Fetch: Vector does not hold them, and the exact scans (TopK, Batch)
// do not serve such rows (NibbleTopK and NibbleBatch do).
func (r *Rows) FetchOnly() bool {
	return slices.ContainsFunc(r.Head, func(p Part) bool { return p.fetchOnly() })
}

// block returns the memory holding row i (a part of Head, or Arena) and
// the rows it holds, lo..hi-1; part is the index of the part, -1 for
// Arena. Not for Mixed rows.
func (r *Rows) block(i int) (vals []float32, lo, hi, part int) {
	for k, p := range r.Head {
		if i < lo+p.N {
			return p.Vals, lo, lo + p.N, k
		}
		lo += p.N
	}
	return r.Arena, lo, lo + len(r.Arena)/max(r.Dim, 1), -1
}

// Vector returns row i, nil for a row of a fetch-only part (ReadVector
// reads it). The slice shares memory with the rows; its capacity ends with
// the vector so an append by the caller cannot overwrite the next row.
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
		if vals, lo, _, _ = r.block(i); vals == nil {
			return nil
		}
	}
	i -= lo
	return vals[i*d : (i+1)*d : (i+1)*d]
}

// vectorOrRead is Vector, or for a fetch-only row its values read into
// memory of their own; nil when they cannot be read.
func (r *Rows) vectorOrRead(i int) []float32 {
	if v := r.Vector(i); v != nil {
		return v
	}
	v := make([]float32, r.Dim)
	if r.ReadVector(context.Background(), v, i) != nil {
		return nil
	}
	return v
}

// ReadVector copies row i into dst (Dim values): for a row of Head
// through its part's Fetch when it has one, so that the row's memory is
// not touched, else from memory. Not for Mixed rows.
func (r *Rows) ReadVector(ctx context.Context, dst []float32, i int) error {
	if len(r.Head) > 0 && !r.Mixed {
		if _, lo, _, k := r.block(i); k >= 0 && r.Head[k].Fetch != nil {
			return r.Head[k].Fetch(ctx, dst, i-lo, 1)
		}
	}
	copy(dst, r.Vector(i))
	return nil
}

// ReadSpan is Span reading rows of a part of Head that has a Fetch through
// it into buf (room for at least one row), as many as buf holds: the
// memory of a mapping is not touched, and fetch-only rows are read.
func (r *Rows) ReadSpan(ctx context.Context, buf []float32, lo, hi int) ([]float32, int, error) {
	if len(r.Head) > 0 {
		if _, first, end, k := r.block(lo); k >= 0 && r.Head[k].Fetch != nil {
			end = min(hi, end, lo+len(buf)/r.Dim)
			if err := r.Head[k].Fetch(ctx, buf[:(end-lo)*r.Dim], lo-first, end-lo); err != nil {
				return nil, lo, err
			}
			return buf[:(end-lo)*r.Dim], end, nil
		}
	}
	vals, end := r.Span(lo, hi)
	return vals, end, nil
}

// readRows is the rows Rows.Each reads from a file at a time: a quarter
// of a megabyte of 384-dimension rows.
const readRows = 160

// Each calls fn with the values of rows lo..hi-1 (not Mixed), in runs
// (fn's first row, and its values), on up to GOMAXPROCS goroutines for
// many rows. The rows of a part of Head that has a Fetch are read through
// it, readRows at a time, not through the mapping (fetch-only rows too).
// It returns the first read's error, or ctx's.
func (r *Rows) Each(ctx context.Context, lo, hi int, fn func(first int, vals []float32)) error {
	var failed atomic.Pointer[error]
	vecmath.ParallelRanges(hi-lo, MinRowsPerWorker, func(a, b int) {
		var buf []float32
		if len(r.Head) > 0 {
			buf = make([]float32, readRows*r.Dim)
		}
		for i := lo + a; i < lo+b && failed.Load() == nil; {
			vals, end, err := r.ReadSpan(ctx, buf, i, lo+b)
			if err != nil {
				failed.CompareAndSwap(nil, &err)
				return
			}
			fn(i, vals)
			i = end
		}
	})
	if err := failed.Load(); err != nil {
		return *err
	}
	return nil
}

// Span returns the values of rows lo..hi-1 as one slice, and hi, when
// they are all in one part of Head or all in Arena; else those of lo up to
// the end of its part, and that end. Callers loop until they reach hi. Not
// for Mixed rows, nor for fetch-only ones.
func (r *Rows) Span(lo, hi int) ([]float32, int) {
	d := r.Dim
	if len(r.Head) == 0 {
		return r.Arena[lo*d : hi*d], hi
	}
	vals, first, end, _ := r.block(lo)
	end = min(hi, end)
	return vals[(lo-first)*d : (end-first)*d], end
}
