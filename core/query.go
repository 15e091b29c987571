package core

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"runtime"
	"sync"

	"github.com/foliovec/folio/core/internal/topk"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// This file is the query path: QueryItems and QueryItemsBatch, from the
// query vector to the kernel (internal/vecmath) and back as results.

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
func scanTopK(ctx context.Context, sel selection, q []float32, k int) ([]topk.Scored, error) {
	if sel.none || sel.s.len() == 0 {
		return nil, nil
	}
	sc := &scan{sel: sel, q: q, qnorm: vecmath.Length(q), k: k}
	if sc.qnorm == 0 {
		// No direction: every score is undefined; the first k selected
		// slots win, in storage order.
		var out []topk.Scored
		sel.each(func(slot int32) {
			if len(out) < k {
				out = append(out, topk.Scored{Key: topk.Undefined, Slot: slot})
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
		h := topk.New(k)
		if !sc.run(ctx, 0, n, h) {
			return nil, ctx.Err()
		}
		return topk.Merge(k, h), nil
	}
	heaps := make([]*topk.Heap, workers)
	done := make([]bool, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		heaps[w] = topk.New(min(k, hi-lo)) // a worker never holds more than its rows
		wg.Go(func() { done[w] = sc.run(ctx, lo, hi, heaps[w]) })
	}
	wg.Wait()
	for _, ok := range done {
		if !ok {
			return nil, ctx.Err()
		}
	}
	return topk.Merge(k, heaps...), nil
}

// run scores positions lo..hi-1 (rows, or indexes into the candidates) into
// h. It reports false when ctx was cancelled.
func (sc *scan) run(ctx context.Context, lo, hi int, h *topk.Heap) bool {
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
func (sc *scan) offer(h *topk.Heap, slot int32, dot float32) {
	key := topk.Undefined
	if scale := sc.sel.s.scale[slot]; scale != 0 {
		d := float64(dot)
		if math.IsInf(d, 0) || d != d {
			// The float32 dot product overflowed (±Inf, or NaN from
			// Inf-Inf): redo it in float64, where it cannot.
			d = vecmath.Dot64(sc.q, sc.sel.s.vector(int(slot)))
		}
		key = d / (sc.qnorm * scale)
		if key != key {
			key = topk.Undefined
		}
	}
	if h.Full() && key <= h.Floor() {
		return // ties lose: slots arrive in ascending order
	}
	h.Offer(topk.Scored{Key: key, Slot: slot})
}

// ItemQuery is one query of Query and QueryItemsBatch: the arguments of
// QueryItems.
type ItemQuery struct {
	Vector []float32
	Query  string // the text BM25 matches when IsBm25 is set
	TopK   int
	Filter Filter
	IsBm25 bool

	// fusion asks for the whole keyword ranking, for rank fusion: TopK
	// keyword hits after the vector hits, vector hits among them too.
	fusion bool
}

// QueryItemsBatch answers many queries at once, all from the same commit:
// result i is what QueryItems returns for queries[i] (same items, same
// scores, same order). Unfiltered queries share one pass over the vectors,
// blocked so that each block of rows is read from memory once for all of
// them while it sits in the CPU cache: at 64 queries a batch answers
// several times more queries per second than one QueryItems call at a
// time. Queries with a filter, and every query of an index that uses
// IndexOptions.QuantizedScan, are answered one by one, as QueryItems
// answers them. An invalid query fails the whole batch with an error that
// names its position.
func (ix *LocalIndex) QueryItemsBatch(ctx context.Context, queries []ItemQuery) ([][]QueryResult, error) {
	return ix.queryItemsBatch(ctx, queries, vanishedRetries)
}

// queryItemsBatch is QueryItemsBatch, asking again on a newer state at most
// retries times when a side-car of its state has vanished.
func (ix *LocalIndex) queryItemsBatch(ctx context.Context, queries []ItemQuery, retries int) ([][]QueryResult, error) {
	const op = "query items batch"
	s, err := ix.snapshot(ctx, op)
	if err != nil {
		return nil, err
	}
	sels := make([]selection, len(queries))
	for i, q := range queries {
		if err := checkQueryVector(op, s, q.Vector); err != nil {
			return nil, fmt.Errorf("%w (query %d)", err, i)
		}
		if sels[i], err = ix.selection(s, q.Filter); err != nil {
			return nil, fmt.Errorf("%w (query %d)", wrapOp(ctx, op, "", err), i)
		}
	}
	hits := make([][]topk.Scored, len(queries))
	var shared []int // queries answered by the blocked pass
	for i, q := range queries {
		switch {
		case q.TopK <= 0:
		case ix.rerank == 0 && sels[i].all && !s.mixed && s.dim > 0 && vecmath.Length(q.Vector) != 0:
			shared = append(shared, i)
		default:
			if hits[i], err = ix.scan(ctx, s, sels[i], q.Vector, q.TopK); err != nil {
				return nil, err
			}
		}
	}
	if len(shared) > 0 {
		if err := batchTopK(ctx, s, queries, shared, hits); err != nil {
			return nil, err
		}
	}
	out := make([][]QueryResult, len(queries))
	for i, q := range queries {
		if q.TopK <= 0 {
			out[i] = []QueryResult{}
			continue
		}
		out[i], err = ix.answer(ctx, s, sels[i], hits[i], q)
		if errors.Is(err, fs.ErrNotExist) && retries > 0 && ix.newerState(ctx, func() bool { return ix.cur.Load() == s }) {
			// A commit since s removed a side-car of s: answer the whole
			// batch from the newer state.
			return ix.queryItemsBatch(ctx, queries, retries-1)
		}
		if err != nil {
			return nil, wrapOp(ctx, op, "", err)
		}
	}
	return out, nil
}

// checkQueryVector validates a query vector against snapshot s.
func checkQueryVector(op string, s *snapshot, vector []float32) error {
	for i, x := range vector {
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("core: %s: vector[%d] is %v: %w", op, i, f, ErrInvalidArgument)
		}
	}
	if !s.mixed && s.dim >= 0 && len(vector) != s.dim {
		return fmt.Errorf("core: %s: vector has %d dimensions, index has %d: %w", op, len(vector), s.dim, ErrDimensionMismatch)
	}
	return nil
}

// scan returns the topK best slots of sel for vector: through the int8
// codes when the index uses them, else exactly.
func (ix *LocalIndex) scan(ctx context.Context, s *snapshot, sel selection, vector []float32, topK int) ([]topk.Scored, error) {
	if qc := s.quantCodes(); ix.rerank > 0 && qc != nil {
		return quantTopK(ctx, sel, vector, topK, ix.rerank, qc)
	}
	return scanTopK(ctx, sel, vector, topK)
}

// answer turns a query's hits into results: items with their full
// metadata, then BM25 keyword hits when asked. An error wrapping
// fs.ErrNotExist may mean a newer commit removed a side-car.
func (ix *LocalIndex) answer(ctx context.Context, s *snapshot, sel selection, hits []topk.Scored, q ItemQuery) ([]QueryResult, error) {
	results := make([]QueryResult, len(hits))
	for i, h := range hits {
		score := h.Key
		if score == topk.Undefined {
			score = 0
		}
		results[i] = QueryResult{Item: s.item(int(h.Slot)), Score: score}
	}
	if err := ix.loadSidecars(ctx, results); err != nil {
		return nil, err
	}
	if q.IsBm25 {
		k, exclude := min(10, q.TopK), hits
		if q.fusion {
			k, exclude = q.TopK, nil
		}
		kw, err := ix.keywordHits(ctx, s, sel, q.Query, k, exclude)
		if err != nil {
			return nil, err
		}
		results = append(results, kw...)
	}
	return results, nil
}

// batchL1Bytes is the size of the block of rows the batched scan scores
// every query against before moving on: small enough to stay in the
// level-1 data cache while each query reads it.
const batchL1Bytes = 24 << 10

// batchTopK answers the queries at positions idx (unfiltered, non-zero,
// of s's dimension) in one pass over s's arena, into hits.
func batchTopK(ctx context.Context, s *snapshot, queries []ItemQuery, idx []int, hits [][]topk.Scored) error {
	n, d := s.len(), s.dim
	scans := make([]scan, len(idx))
	for j, i := range idx {
		q := queries[i].Vector
		scans[j] = scan{sel: selection{s: s, all: true}, q: q, qnorm: vecmath.Length(q), k: min(queries[i].TopK, n)}
	}
	block := max(4, batchL1Bytes/(4*d)&^3)
	workers := min(runtime.GOMAXPROCS(0), n/minRowsPerWorker)
	workers = max(workers, 1)
	heaps := make([][]*topk.Heap, workers) // [worker][query]
	done := make([]bool, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		heaps[w] = make([]*topk.Heap, len(scans))
		for j := range scans {
			heaps[w][j] = topk.New(min(scans[j].k, hi-lo))
		}
		wg.Go(func() { done[w] = batchRun(ctx, s, scans, heaps[w], lo, hi, block) })
	}
	wg.Wait()
	for _, ok := range done {
		if !ok {
			return ctx.Err()
		}
	}
	for j, i := range idx {
		hs := make([]*topk.Heap, workers)
		for w := range workers {
			hs[w] = heaps[w][j]
		}
		hits[i] = topk.Merge(scans[j].k, hs...)
	}
	return nil
}

// batchRun scores rows lo..hi-1 for every scan into its heap, a block of
// rows at a time. It reports false when ctx was cancelled.
func batchRun(ctx context.Context, s *snapshot, scans []scan, heaps []*topk.Heap, lo, hi, block int) bool {
	d := s.dim
	out := make([]float32, block)
	inv := make([]float64, block)
	for start, blocks := lo, 0; start < hi; start, blocks = start+block, blocks+1 {
		if blocks%256 == 255 && ctx.Err() != nil {
			return false
		}
		end := min(start+block, hi)
		rows := s.arena[start*d : end*d]
		for r := range end - start {
			if sc := s.scale[start+r]; sc != 0 {
				inv[r] = 1 / sc
			} else {
				inv[r] = 0
			}
		}
		for j := range scans {
			sc, h := &scans[j], heaps[j]
			vecmath.DotMany(sc.q, rows, out[:end-start])
			// A row whose score is surely at most the heap's floor is
			// skipped without the division offer makes: its dot
			// product over its length, below the floor by more than
			// rounding, cannot enter. Anything else goes through offer,
			// which ranks exactly as the single-query scan does.
			limit := math.Inf(-1)
			if h.Full() {
				f := h.Floor() * sc.qnorm
				limit = f - math.Abs(f)*1e-9
			}
			for r := range end - start {
				if a := float64(out[r]) * inv[r]; a < limit && a > -math.MaxFloat64 {
					continue
				}
				sc.offer(h, int32(start+r), out[r])
				if h.Full() {
					f := h.Floor() * sc.qnorm
					limit = f - math.Abs(f)*1e-9
				}
			}
		}
	}
	return true
}

// CosineSimilarity returns the cosine of the angle between a and b, computed
// in float64 (Vectra's ItemSelector.cosineSimilarity). Both vectors are
// truncated to the shorter length, norms included; the result is NaN when
// either truncated vector has a zero norm.
func CosineSimilarity(a, b []float32) float64 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	return NormalizedCosineSimilarity(a, Norm(a), b, Norm(b))
}

// Norm returns the Euclidean length of v, computed in float64; 0 for an
// empty vector. (Vectra calls it normalize, but it returns the length: the
// vector is not changed.)
func Norm(v []float32) float64 {
	// One accumulator, in index order, as Vectra sums: the same inputs give
	// the same bits. The explicit conversion keeps the compiler from fusing
	// the multiply and add (it may on arm64), which would change the bits.
	var s float64
	for _, x := range v {
		s += float64(float64(x) * float64(x))
	}
	return math.Sqrt(s)
}

// NormalizedCosineSimilarity returns dot(a, b) / (normA * normB) with the
// dot product over the first min(len(a), len(b)) elements, computed in
// float64 (Vectra's ItemSelector.normalizedCosineSimilarity). normA and
// normB are the vectors' precomputed lengths (see [Norm]); the result is NaN
// when either is 0.
func NormalizedCosineSimilarity(a []float32, normA float64, b []float32, normB float64) float64 {
	if normA == 0 || normB == 0 {
		return math.NaN()
	}
	return vecmath.Dot64(a, b) / (normA * normB)
}
