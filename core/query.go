package core

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"time"

	"github.com/foliovec/folio/core/internal/scan"

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
	start := time.Now()
	res, err := ix.query(ctx, q, vanishedRetries)
	m := &ix.metrics
	count(1, start, err, &m.queries, &m.queryErrors, &m.queryNanos)
	return res, err
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
		return nil, WrapOp(ctx, op, "", err)
	}
	if q.TopK <= 0 {
		return []QueryResult{}, nil
	}
	hits, err := ix.topK(ctx, s, sel, q.Vector, q.TopK)
	var results []QueryResult
	if err == nil {
		results, err = ix.answer(ctx, s, sel, hits, q)
		if err != nil {
			err = WrapOp(ctx, op, "", err)
		}
	}
	if ix.vanished(ctx, err, retries, s) {
		return ix.query(ctx, q, retries-1) // answer from the newer state
	}
	return results, err
}

// vanished reports whether a query on state s that failed with err should
// ask again: a file of s is gone (fs.ErrNotExist: a side-car of a result
// replaced or deleted, a segment compacted away, a file replaced on an
// HTTP host), retries are left, and a newer state is there to ask.
func (ix *LocalIndex) vanished(ctx context.Context, err error, retries int, s *snapshot) bool {
	return errors.Is(err, fs.ErrNotExist) && retries > 0 && ix.newerState(ctx, func() bool { return ix.cur.Load() == s })
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
// time; an index that keeps 4-bit codes (IndexOptions.ScanCodes
// CodesInt4) shares its pass over the codes likewise, then scores each
// query's candidates exactly. Queries with a filter, and every query of
// an index that keeps int8 codes, are answered one by one, as QueryItems
// answers them. An invalid query fails the whole batch with an error that
// names its position.
func (ix *LocalIndex) QueryItemsBatch(ctx context.Context, queries []ItemQuery) ([][]QueryResult, error) {
	start := time.Now()
	res, err := ix.queryItemsBatch(ctx, queries, vanishedRetries)
	m := &ix.metrics
	count(uint64(len(queries)), start, err, &m.queries, &m.queryErrors, &m.queryNanos)
	return res, err
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
			return nil, fmt.Errorf("%w (query %d)", WrapOp(ctx, op, "", err), i)
		}
	}
	hits := make([][]topk.Scored, len(queries))
	var shared []int // queries answered by the blocked pass
	codes := s.quantCodes()
	for i, q := range queries {
		switch {
		case q.TopK <= 0:
		case ix.rerank == 0 && s.passable(sels[i], q.Vector),
			ix.rerank > 0 && codes != nil && codes.int4 != nil && codes.parts == nil && sels[i].All:
			shared = append(shared, i)
		default:
			if hits[i], err = ix.topK(ctx, s, sels[i], q.Vector, q.TopK); err != nil {
				if ix.vanished(ctx, err, retries, s) {
					return ix.queryItemsBatch(ctx, queries, retries-1) // a file of s is gone
				}
				return nil, err
			}
		}
	}
	if len(shared) > 0 {
		vectors, ks := make([][]float32, len(shared)), make([]int, len(shared))
		for j, i := range shared {
			vectors[j], ks[j] = queries[i].Vector, queries[i].TopK+s.ndead
		}
		var batched [][]topk.Scored
		scans := &ix.metrics.exactScans
		if ix.rerank > 0 {
			scans = &ix.metrics.codeScans
		}
		scans.Add(uint64(len(shared)))
		if ix.rerank > 0 {
			batched, err = scan.NibbleBatch(ctx, &s.Rows, s.len(), vectors, ks, ix.rerank, codes.int4, codes.narrowing(ix.narrow))
		} else {
			batched, err = scan.Batch(ctx, &s.Rows, s.len(), vectors, ks)
		}
		if ix.vanished(ctx, err, retries, s) {
			return ix.queryItemsBatch(ctx, queries, retries-1) // a file of s is gone
		}
		if err != nil {
			return nil, err
		}
		for j, i := range shared {
			hits[i] = s.finish(batched[j], sels[i], queries[i].Vector, queries[i].TopK)
		}
	}
	out := make([][]QueryResult, len(queries))
	for i, q := range queries {
		if q.TopK <= 0 {
			out[i] = []QueryResult{}
			continue
		}
		out[i], err = ix.answer(ctx, s, sels[i], hits[i], q)
		if ix.vanished(ctx, err, retries, s) {
			// A commit since s removed a side-car of s: answer the whole
			// batch from the newer state.
			return ix.queryItemsBatch(ctx, queries, retries-1)
		}
		if err != nil {
			return nil, WrapOp(ctx, op, "", err)
		}
	}
	return out, nil
}

// checkQueryVector validates a query vector against snapshot s.
func checkQueryVector(op string, s *snapshot, vector []float32) error {
	for i, x := range vector {
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return &Error{Op: op, Err: fmt.Errorf("vector[%d] is %v: %w", i, f, ErrInvalidArgument)}
		}
	}
	if !s.Mixed && s.Dim >= 0 && len(vector) != s.Dim {
		return &Error{Op: op, Err: fmt.Errorf("vector has %d dimensions, index has %d: %w", len(vector), s.Dim, ErrDimensionMismatch)}
	}
	return nil
}

// topK returns the topK best slots of sel for vector: through the int8
// codes when the index uses them, else exactly (package scan).
// Dead slots are asked for on top and dropped.
func (ix *LocalIndex) topK(ctx context.Context, s *snapshot, sel selection, vector []float32, topK int) ([]topk.Scored, error) {
	k := topK + s.ndead
	var hits []topk.Scored
	var err error
	m := &ix.metrics
	switch codes := s.quantCodes(); {
	case ix.rerank > 0 && codes != nil:
		m.codeScans.Add(1)
		hits, err = ix.probe(ctx, s, codes, sel, vector, k)
	case s.passable(sel, vector):
		// Concurrent unfiltered queries share their passes over the rows.
		m.exactScans.Add(1)
		hits, err = ix.passes.TopK(ctx, &s.Rows, s.len(), vector, k)
	default:
		if sel.All {
			m.exactScans.Add(1)
		} else {
			m.filteredScans.Add(1)
		}
		hits, err = scan.TopK(ctx, &s.Rows, sel, vector, k)
	}
	if err != nil {
		return nil, err
	}
	return s.finish(hits, sel, vector, topK), nil
}

// codeScan is the quantized scan of sel for q through c's codes: the best
// k rows by their codes, re-ranked exactly.
func (ix *LocalIndex) codeScan(ctx context.Context, s *snapshot, c *coarse, sel selection, q []float32, k int) ([]topk.Scored, error) {
	if c.int4 != nil {
		return scan.NibbleTopK(ctx, &s.Rows, sel, q, k, ix.rerank, c.int4, c.narrowing(ix.narrow))
	}
	return scan.QuantTopK(ctx, &s.Rows, sel, q, k, ix.rerank, c.int8)
}

// probe is codeScan over the rows of the partitions nearest q
// (IndexOptions.Partitions), or over sel when partitions cannot serve the
// query: none are kept or they do not pay, a filter's posting lists name
// its candidates already, q has no direction or lies farther from every
// centroid than the calibration's queries did, or fewer than a tenth of
// the probed rows pass the filter.
func (ix *LocalIndex) probe(ctx context.Context, s *snapshot, c *coarse, sel selection, q []float32, k int) ([]topk.Scored, error) {
	p := c.parts
	if p == nil || !p.Pays || sel.None || sel.Cands != nil {
		return ix.codeScan(ctx, s, c, sel, q, k)
	}
	best, parts := p.Choose(q)
	if len(parts) == 0 || best < p.Floor {
		if sel.All && c.groups != nil {
			// Every row, read from the grouped copy of the codes rather
			// than from the codes in place, which then stay unread.
			return scan.NibbleProbe(ctx, &s.Rows, sel.Meta, q, k, ix.rerank, c.int4, c.groups, p.All(), c.narrowing(ix.narrow))
		}
		return ix.codeScan(ctx, s, c, sel, q, k)
	}
	if sel.All && c.groups != nil {
		ix.metrics.probedScans.Add(1)
		return scan.NibbleProbe(ctx, &s.Rows, sel.Meta, q, k, ix.rerank, c.int4, c.groups, parts, c.narrowing(ix.narrow))
	}
	cands := p.RowsOf(parts, nil)
	for r := p.Rows(); r < s.len(); r++ { // rows committed since the partitions were trained
		cands = append(cands, int32(r))
	}
	if !sel.All {
		probed := len(cands)
		cands = slices.DeleteFunc(cands, func(r int32) bool { return !sel.Match(map[string]any(sel.Meta[r])) })
		if len(cands)*10 < probed {
			return ix.codeScan(ctx, s, c, sel, q, k)
		}
	}
	ix.metrics.probedScans.Add(1)
	return ix.codeScan(ctx, s, c, selection{Meta: sel.Meta, Cands: cands, Exact: true}, q, k)
}

// passable reports whether a query of vector over sel can be scored in a
// pass over s's arena with other queries (scan.Batch, scan.Shared): every
// row selected, rows of one length, a query with a direction.
func (s *snapshot) passable(sel selection, vector []float32) bool {
	return sel.All && !s.Mixed && s.Dim > 0 && len(s.meta) > 0 && vecmath.Length(vector) != 0
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
		it, err := s.item(ctx, int(h.Slot))
		if err != nil {
			return nil, err
		}
		results[i] = QueryResult{Item: it, Score: score}
	}
	if err := ix.sides.load(ctx, results); err != nil {
		return nil, err
	}
	if q.IsBm25 {
		ix.metrics.keyword.Add(1)
		k, exclude := min(10, q.TopK), hits
		if q.fusion {
			k, exclude = q.TopK, nil
		}
		kw, err := ix.keywords.keywordHits(ctx, s, sel, q.Query, k, exclude, q.fusion)
		if err != nil {
			return nil, err
		}
		results = append(results, kw...)
	}
	return results, nil
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
