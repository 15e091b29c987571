package core

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"runtime"
	"sync"

	"github.com/foliovec/folio/core/internal/vecmath"
)

// QueryItems returns the topK committed items most similar to vector by
// cosine similarity, best first, among those whose inline metadata matches
// filter (nil or empty: all). Results carry the full metadata, read from
// side-car files for items that have one (should a commit remove one of
// them meanwhile, the query is answered from the newer state). topK <= 0
// returns no result.
//
// Scoring is exact: every selected item is scored, as dot(vector, item) /
// (|vector| |item|), with the dot product in float32 and the rest in
// float64. Equal scores rank in storage (insertion) order, so results are
// deterministic. Fix over Vectra: an item or query vector of length zero
// (or norm zero) has no direction; it scores 0 and ranks after every item
// that has a score, in storage order — it never displaces better items
// (Vectra's NaN scores did). So a zero query returns the first topK
// selected items, each with score 0.
//
// A query vector holding NaN or ±Inf is ErrInvalidArgument. When the index
// holds vectors of one length, a query of another length is
// ErrDimensionMismatch. An index file written by another tool with vectors
// of different lengths is queried as Vectra does: each dot product runs
// over the shorter prefix, and norms over whole vectors.
//
// With isBm25, keyword matches of query are appended after the vector
// results (Vectra's hybrid search): up to min(10, topK) chunk
// items that match filter and are not among the vector results, ranked by
// Okapi BM25 (k1 1.2, b 0.75) over the chunk texts, each flagged with
// "isBm25": true in a copy of its inline metadata and scored with its raw
// BM25 score. Chunk items are those whose inline metadata has documentId,
// startPos and endPos. The keyword index is built on the first hybrid
// query, reading each document once through IndexOptions.DocReader, and
// kept up to date by later commits.
//
// The scan runs on up to GOMAXPROCS goroutines, each keeping its own top-K.
// Filters with equality or $in terms on indexed fields are narrowed with
// posting lists, so only candidates are tested and scored.
func (ix *LocalIndex) QueryItems(ctx context.Context, vector []float32, query string, topK int, filter Filter, isBm25 bool) ([]QueryResult, error) {
	return ix.Query(ctx, ItemQuery{Vector: vector, Query: query, TopK: topK, Filter: filter, IsBm25: isBm25})
}

// Query answers one query, as QueryItems does with q's fields as its
// arguments; QueryItems is Vectra's shape of this call.
func (ix *LocalIndex) Query(ctx context.Context, q ItemQuery) ([]QueryResult, error) {
	return ix.query(ctx, q, vanishedRetries)
}

// query is Query, asking again on a newer state at most retries times when
// a side-car of its state has vanished.
func (ix *LocalIndex) query(ctx context.Context, q ItemQuery, retries int) ([]QueryResult, error) {
	const op = "query items"
	s, err := ix.snapshot(ctx, op)
	if err != nil {
		return nil, err
	}
	if err := checkQueryVector(op, s, q.Vector); err != nil {
		return nil, err
	}
	sel, err := ix.selection(s, q.Filter)
	if err != nil {
		return nil, wrapOp(ctx, op, "", err)
	}
	if q.TopK <= 0 {
		return []QueryResult{}, nil
	}
	hits, err := ix.scan(ctx, s, sel, q.Vector, q.TopK)
	if err != nil {
		return nil, err
	}
	results, err := ix.answer(ctx, s, sel, hits, q)
	if errors.Is(err, fs.ErrNotExist) && retries > 0 && ix.newerState(ctx, func() bool { return ix.cur.Load() == s }) {
		// A commit since s, in this process or another, removed a
		// side-car of s (a result replaced or deleted): answer from the
		// newer state.
		return ix.query(ctx, q, retries-1)
	}
	if err != nil {
		return nil, wrapOp(ctx, op, "", err)
	}
	return results, nil
}

// scanBlock is the number of rows scored per kernel call.
const scanBlock = 256

// minRowsPerWorker keeps small scans on one goroutine, where starting
// others would cost more than it saves.
const minRowsPerWorker = 4096

// scan is one query's scoring pass over a selection.
type scan struct {
	sel   selection
	q     []float32
	qnorm float64
	k     int
}

// scanTopK returns the k best selected slots, best first.
func scanTopK(ctx context.Context, sel selection, q []float32, k int) ([]scored, error) {
	if sel.none || sel.s.len() == 0 {
		return nil, nil
	}
	sc := &scan{sel: sel, q: q, qnorm: vectorLength(q), k: k}
	if sc.qnorm == 0 {
		// No direction: every score is undefined; the first k selected
		// slots win, in storage order.
		var out []scored
		sel.each(func(slot int32) {
			if len(out) < k {
				out = append(out, scored{key: undefinedScore, slot: slot})
			}
		})
		return out, nil
	}
	n := sel.s.len()
	if sel.cands != nil {
		n = len(sel.cands)
	}
	k = min(k, n) // heaps hold at most k; a huge topK must not allocate
	workers := min(runtime.GOMAXPROCS(0), n/minRowsPerWorker)
	if workers <= 1 {
		h := newTopK(k)
		if !sc.run(ctx, 0, n, h) {
			return nil, ctx.Err()
		}
		return mergeTopK(k, h), nil
	}
	heaps := make([]*topK, workers)
	done := make([]bool, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		heaps[w] = newTopK(min(k, hi-lo)) // a worker never holds more than its rows
		wg.Go(func() { done[w] = sc.run(ctx, lo, hi, heaps[w]) })
	}
	wg.Wait()
	for _, ok := range done {
		if !ok {
			return nil, ctx.Err()
		}
	}
	return mergeTopK(k, heaps...), nil
}

// run scores positions lo..hi-1 (rows, or indexes into the candidates) into
// h. It reports false when ctx was cancelled.
func (sc *scan) run(ctx context.Context, lo, hi int, h *topK) bool {
	s := sc.sel.s
	var out [scanBlock]float32
	var idx [scanBlock]int32
	for start, blocks := lo, 0; start < hi; start, blocks = start+scanBlock, blocks+1 {
		if blocks%64 == 63 && ctx.Err() != nil {
			return false
		}
		end := min(start+scanBlock, hi)
		if sc.sel.all && !s.mixed {
			d := s.dim
			vecmath.DotMany(sc.q, s.arena[start*d:end*d], out[:end-start])
			for j := range end - start {
				sc.offer(h, int32(start+j), out[j])
			}
			continue
		}
		// Gather the selected slots of this block, then score them.
		m := 0
		for p := start; p < end; p++ {
			slot := int32(p)
			if sc.sel.cands != nil {
				slot = sc.sel.cands[p]
			}
			if sc.sel.all || sc.sel.exact || sc.sel.match(s.meta[slot]) {
				idx[m] = slot
				m++
			}
		}
		sc.dotRows(idx[:m], out[:m])
		for j := range m {
			sc.offer(h, idx[j], out[j])
		}
	}
	return true
}

// dotRows writes the dot product of the query with each slot's vector.
func (sc *scan) dotRows(slots []int32, out []float32) {
	s := sc.sel.s
	if !s.mixed && s.dim > 0 {
		vecmath.DotManyIdx(sc.q, s.arena, slots, out)
		return
	}
	for j, slot := range slots {
		out[j] = vecmath.Dot(sc.q, s.vector(int(slot)))
	}
}

// offer scores one slot from its dot product and offers it to h.
func (sc *scan) offer(h *topK, slot int32, dot float32) {
	key := undefinedScore
	if scale := sc.sel.s.scale[slot]; scale != 0 {
		d := float64(dot)
		if math.IsInf(d, 0) || d != d {
			// The float32 dot product overflowed (±Inf, or NaN from
			// Inf-Inf): redo it in float64, where it cannot.
			d = dot64(sc.q, sc.sel.s.vector(int(slot)))
		}
		key = d / (sc.qnorm * scale)
		if key != key {
			key = undefinedScore
		}
	}
	if h.full() && key <= h.floor() {
		return // ties lose: slots arrive in ascending order
	}
	h.offer(scored{key: key, slot: slot})
}
