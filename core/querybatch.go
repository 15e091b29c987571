package core

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"runtime"
	"sync"

	"github.com/foliovec/folio/core/internal/vecmath"
)

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
	hits := make([][]scored, len(queries))
	var shared []int // queries answered by the blocked pass
	for i, q := range queries {
		switch {
		case q.TopK <= 0:
		case ix.rerank == 0 && sels[i].all && !s.mixed && s.dim > 0 && vectorLength(q.Vector) != 0:
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
func (ix *LocalIndex) scan(ctx context.Context, s *snapshot, sel selection, vector []float32, topK int) ([]scored, error) {
	if qc := s.quantCodes(); ix.rerank > 0 && qc != nil {
		return quantTopK(ctx, sel, vector, topK, ix.rerank, qc)
	}
	return scanTopK(ctx, sel, vector, topK)
}

// answer turns a query's hits into results: items with their full
// metadata, then BM25 keyword hits when asked. An error wrapping
// fs.ErrNotExist may mean a newer commit removed a side-car.
func (ix *LocalIndex) answer(ctx context.Context, s *snapshot, sel selection, hits []scored, q ItemQuery) ([]QueryResult, error) {
	results := make([]QueryResult, len(hits))
	for i, h := range hits {
		score := h.key
		if score == undefinedScore {
			score = 0
		}
		results[i] = QueryResult{Item: s.item(int(h.slot)), Score: score}
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
func batchTopK(ctx context.Context, s *snapshot, queries []ItemQuery, idx []int, hits [][]scored) error {
	n, d := s.len(), s.dim
	scans := make([]scan, len(idx))
	for j, i := range idx {
		q := queries[i].Vector
		scans[j] = scan{sel: selection{s: s, all: true}, q: q, qnorm: vectorLength(q), k: min(queries[i].TopK, n)}
	}
	block := max(4, batchL1Bytes/(4*d)&^3)
	workers := min(runtime.GOMAXPROCS(0), n/minRowsPerWorker)
	workers = max(workers, 1)
	heaps := make([][]*topK, workers) // [worker][query]
	done := make([]bool, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		heaps[w] = make([]*topK, len(scans))
		for j := range scans {
			heaps[w][j] = newTopK(min(scans[j].k, hi-lo))
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
		hs := make([]*topK, workers)
		for w := range workers {
			hs[w] = heaps[w][j]
		}
		hits[i] = mergeTopK(scans[j].k, hs...)
	}
	return nil
}

// batchRun scores rows lo..hi-1 for every scan into its heap, a block of
// rows at a time. It reports false when ctx was cancelled.
func batchRun(ctx context.Context, s *snapshot, scans []scan, heaps []*topK, lo, hi, block int) bool {
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
			if h.full() {
				f := h.floor() * sc.qnorm
				limit = f - math.Abs(f)*1e-9
			}
			for r := range end - start {
				if a := float64(out[r]) * inv[r]; a < limit && a > -math.MaxFloat64 {
					continue
				}
				sc.offer(h, int32(start+r), out[r])
				if h.full() {
					f := h.floor() * sc.qnorm
					limit = f - math.Abs(f)*1e-9
				}
			}
		}
	}
	return true
}
