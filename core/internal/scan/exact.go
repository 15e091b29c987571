package scan

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/foliovec/folio/core/internal/par"
	"github.com/foliovec/folio/core/internal/topk"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// block is the number of rows scored per kernel call.
const block = 256

// MinRowsPerWorker keeps small scans on one goroutine, where starting
// others would cost more than it saves.
const MinRowsPerWorker = 4096

// chunksPerWorker is how many chunks split cuts a scan into per worker:
// enough that a worker the system holds back (on a machine shared with
// other work) leaves the others a few chunks to take instead of waiting at
// the end, few enough that a chunk is still a long stream of rows.
const chunksPerWorker = 8

// split runs fn(w, lo', hi') over [lo, hi) cut into chunks of whole
// blocks, which workers goroutines take in turn, the last worker on the
// calling goroutine (one goroutine fewer to start, and the caller scans
// instead of waiting to be woken), and returns when every chunk taken is
// done. Worker w's chunks come in ascending order and one at a time, so
// fn may keep per-worker state. Workers take no more chunks once ctx
// ends; split then returns ctx's error.
func split(ctx context.Context, lo, hi, workers int, fn func(w, lo, hi int)) error {
	size := max(block, (hi-lo)/(workers*chunksPerWorker)/block*block)
	var next atomic.Int64
	work := func(w int) {
		for ctx.Err() == nil {
			start := lo + int(next.Add(1)-1)*size
			if start >= hi {
				return
			}
			fn(w, start, min(start+size, hi))
		}
	}
	var wg sync.WaitGroup
	for w := range workers - 1 {
		wg.Go(func() { work(w) })
	}
	work(workers - 1)
	wg.Wait()
	return ctx.Err()
}

// errFetchOnly is the error of an exact scan of rows that are only read
// through a part's Fetch, which re-ranks serve instead.
var errFetchOnly = errors.New("scan: the exact scan does not read rows that are only fetched")

// scan is one query's scoring pass over a selection.
type scan[M ~map[string]any] struct {
	rows  *Rows
	sel   Selection[M]
	q     []float32
	qnorm float64
	k     int
}

// TopK returns the k best selected rows for q, best first. Scores are
// exact: dot(q, row) / (|q| |row|), with the dot product in float32 and the
// rest in float64; a row or query with no direction scores topk.Undefined,
// after every real score. It returns ctx's error if ctx ends during the
// scan.
func TopK[M ~map[string]any](ctx context.Context, rows *Rows, sel Selection[M], q []float32, k int) ([]topk.Scored, error) {
	if sel.None || len(sel.Meta) == 0 {
		return nil, nil
	}
	sc := &scan[M]{rows: rows, sel: sel, q: q, qnorm: vecmath.Length(q), k: k}
	if sc.qnorm == 0 {
		// No direction: every score is undefined; the first k selected
		// rows win, in storage order.
		var out []topk.Scored
		sel.Each(func(slot int32) {
			if len(out) < k {
				out = append(out, topk.Scored{Key: topk.Undefined, Slot: slot})
			}
		})
		return out, nil
	}
	if rows.FetchOnly() {
		return nil, errFetchOnly
	}
	n := sel.candidates()
	k = min(k, n) // heaps hold at most k; a huge topK must not allocate
	workers := min(runtime.GOMAXPROCS(0), n/MinRowsPerWorker)
	if workers <= 1 {
		h := topk.New(k)
		if !sc.run(ctx, 0, n, h) {
			return nil, ctx.Err()
		}
		return topk.Merge(k, h), nil
	}
	heaps := make([]*topk.Heap, workers)
	for w := range heaps {
		heaps[w] = topk.New(k)
	}
	if err := split(ctx, 0, n, workers, func(w, lo, hi int) { sc.run(ctx, lo, hi, heaps[w]) }); err != nil {
		return nil, err
	}
	return topk.Merge(k, heaps...), nil
}

// run scores positions lo..hi-1 (rows, or indexes into the candidates) into
// h. It reports false when ctx was cancelled.
func (sc *scan[M]) run(ctx context.Context, lo, hi int, h *topk.Heap) bool {
	r := sc.rows
	var out [block]float32
	var idx [block]int32
	for start, blocks, end := lo, 0, 0; start < hi; start, blocks = end, blocks+1 {
		if blocks%64 == 63 && ctx.Err() != nil {
			return false
		}
		end = min(start+block, hi)
		if sc.sel.All && !r.Mixed {
			var vals []float32
			vals, end = r.Span(start, end) // a block never spans two parts
			vecmath.DotMany(sc.q, vals, out[:end-start])
			for j := range end - start {
				sc.offer(h, int32(start+j), out[j])
			}
			continue
		}
		// Gather the selected rows of this block, then score them.
		m := sc.sel.gather(start, end, idx[:])
		sc.dotRows(idx[:m], out[:m])
		for j := range m {
			sc.offer(h, idx[j], out[j])
		}
	}
	return true
}

// dotRows writes the dot product of the query with each row's vector.
func (sc *scan[M]) dotRows(slots []int32, out []float32) {
	r := sc.rows
	if r.Mixed || r.Dim <= 0 {
		for j, slot := range slots {
			out[j] = vecmath.Dot(sc.q, r.Vector(int(slot)))
		}
		return
	}
	if len(r.Head) == 0 {
		vecmath.DotManyIdx(sc.q, r.Arena, slots, out)
		return
	}
	// Runs of slots in one part of Head or in Arena, each scored in one
	// call, renumbered from the first row of their memory.
	var adj []int32
	for i := 0; i < len(slots); {
		vals, lo, hi, _ := r.block(int(slots[i]))
		j := i + 1
		for j < len(slots) && int(slots[j]) >= lo && int(slots[j]) < hi {
			j++
		}
		run := slots[i:j]
		if lo > 0 {
			adj = adj[:0]
			for _, slot := range run {
				adj = append(adj, slot-int32(lo))
			}
			run = adj
		}
		vecmath.DotManyIdx(sc.q, vals, run, out[i:j])
		i = j
	}
}

// fetchReaders is the most goroutines fetchDots reads rows on, and
// fetchRunsPerReader the fewest reads each is given: the re-rank of a
// top-10 query reads about 400 rows.
const (
	fetchReaders       = 8
	fetchRunsPerReader = 16
)

// fetchDots is dotRows for slots in ascending order, reading the rows of
// Head through their part's Fetch when it has one: consecutive rows of a
// part in one read.
func (sc *scan[M]) fetchDots(ctx context.Context, slots []int32, out []float32) error {
	r := sc.rows
	if !slices.ContainsFunc(r.Head, func(p Part) bool { return p.Fetch != nil }) || r.Dim <= 0 {
		sc.dotRows(slots, out)
		return nil
	}
	n, _ := slices.BinarySearch(slots, int32(r.HeadRows())) // the slots in Head
	d := r.Dim
	buf := make([]float32, n*d)
	// A run is slots[i:j], rows of Head[part] from its row lo.
	type run struct{ i, j, part, lo int }
	var runs []run // runs of consecutive slots in one part, one read each
	for i := 0; i < n; {
		_, lo, hi, k := r.block(int(slots[i]))
		j := i + 1
		for j < n && slots[j] == slots[j-1]+1 && int(slots[j]) < hi {
			j++
		}
		runs = append(runs, run{i, j, k, lo})
		i = j
	}
	// Parts that read many runs with one call get all of theirs at once.
	var batched map[int][]Run
	rest := runs[:0]
	for _, rn := range runs {
		if p := r.Head[rn.part]; p.FetchRuns != nil {
			if batched == nil {
				batched = map[int][]Run{}
			}
			batched[rn.part] = append(batched[rn.part], Run{Dst: buf[rn.i*d : rn.j*d], First: int(slots[rn.i]) - rn.lo, Count: rn.j - rn.i})
			continue
		}
		rest = append(rest, rn)
	}
	runs = rest
	for part, rs := range batched {
		if err := r.Head[part].FetchRuns(ctx, rs); err != nil {
			return err
		}
	}
	fetch := func(rn run) error {
		dst, first, p := buf[rn.i*d:rn.j*d], int(slots[rn.i])-rn.lo, r.Head[rn.part]
		if p.Fetch == nil {
			copy(dst, p.Vals[first*d:])
			return nil
		}
		return p.Fetch(ctx, dst, first, rn.j-rn.i)
	}
	// Rows not in the page cache are read from the disk, which serves
	// several reads at once far sooner than one after another.
	readers := max(1, min(fetchReaders, len(runs)/fetchRunsPerReader))
	err := par.Each(ctx, readers, readers, func(ctx context.Context, w int) error {
		for k := w; k < len(runs) && ctx.Err() == nil; k += readers {
			if err := fetch(runs[k]); err != nil {
				return err
			}
		}
		return ctx.Err()
	})
	if err != nil {
		return err
	}
	if n > 0 {
		vecmath.DotMany(sc.q, buf, out[:n])
	}
	sc.dotRows(slots[n:], out[n:])
	return nil
}

// offer scores one row from its dot product and offers it to h.
func (sc *scan[M]) offer(h *topk.Heap, slot int32, dot float32) {
	offer(h, sc.rows, sc.q, sc.qnorm, slot, dot)
}

// offer scores row slot for query q (of length qnorm) from its dot product
// and offers it to h.
func offer(h *topk.Heap, rows *Rows, q []float32, qnorm float64, slot int32, dot float32) {
	key := rowKey(rows, q, qnorm, slot, dot)
	if h.Full() && key <= h.Floor() {
		return // ties lose: rows arrive in ascending order
	}
	h.Offer(topk.Scored{Key: key, Slot: slot})
}

// rowKey is the rank key of row slot for query q (of length qnorm, not 0)
// from their dot product.
func rowKey(rows *Rows, q []float32, qnorm float64, slot int32, dot float32) float64 {
	scale := rows.Scale[slot]
	if scale == 0 {
		return topk.Undefined
	}
	d := float64(dot)
	if math.IsInf(d, 0) || d != d {
		// The float32 dot product overflowed (±Inf, or NaN from Inf-Inf):
		// redo it in float64, where it cannot.
		v := rows.vectorOrRead(int(slot))
		if v == nil {
			return topk.Undefined // a fetch-only row that cannot be read
		}
		d = vecmath.Dot64(q, v)
	}
	key := d / (qnorm * scale)
	if key != key {
		return topk.Undefined
	}
	return key
}

// Key is the rank key the scans give row slot for query q: its exact
// cosine score, or topk.Undefined (also for a fetch-only row that cannot
// be read).
func Key(rows *Rows, q []float32, slot int32) float64 {
	qnorm := vecmath.Length(q)
	if qnorm == 0 {
		return topk.Undefined
	}
	v := rows.vectorOrRead(int(slot))
	if v == nil {
		return topk.Undefined
	}
	return rowKey(rows, q, qnorm, slot, vecmath.Dot(q, v))
}

// batchL1Bytes is the size of the block of rows the batched scan scores
// every query against before moving on: small enough to stay in the
// level-1 data cache while each query reads it.
const batchL1Bytes = 24 << 10

// Batch answers unfiltered queries (each non-zero, of the rows' common
// length, over rows that are not Mixed) in one pass over the n rows, a
// block of rows at a time for every query while the block is in cache:
// result j is what TopK returns for queries[j] and ks[j].
func Batch(ctx context.Context, rows *Rows, n int, queries [][]float32, ks []int) ([][]topk.Scored, error) {
	if rows.FetchOnly() {
		return nil, errFetchOnly
	}
	return batchRange(ctx, rows, 0, n, queries, ks)
}

// undefinedRows is the answer of a query with no direction over every
// row: the first k rows, each scoring topk.Undefined.
func undefinedRows(k int) []topk.Scored {
	out := make([]topk.Scored, k)
	for i := range out {
		out[i] = topk.Scored{Key: topk.Undefined, Slot: int32(i)}
	}
	return out
}

// batchRange is Batch over rows lo..hi-1 alone.
func batchRange(ctx context.Context, rows *Rows, lo, hi int, queries [][]float32, ks []int) ([][]topk.Scored, error) {
	d, n := rows.Dim, hi-lo
	scans := make([]batchQuery, len(queries))
	for j, q := range queries {
		scans[j] = batchQuery{q: q, qnorm: vecmath.Length(q), k: min(ks[j], n)}
	}
	blk := max(4, batchL1Bytes/(4*d)&^3)
	if len(scans) == 1 {
		blk = block // nothing to share a block with: read it as TopK does
	}
	workers := max(min(runtime.GOMAXPROCS(0), n/MinRowsPerWorker), 1)
	heaps := make([][]*topk.Heap, workers) // [worker][query]
	for w := range heaps {
		heaps[w] = make([]*topk.Heap, len(scans))
		for j := range scans {
			heaps[w][j] = topk.New(scans[j].k)
		}
	}
	if err := split(ctx, lo, hi, workers, func(w, wlo, whi int) { batchRun(ctx, rows, scans, heaps[w], wlo, whi, blk) }); err != nil {
		return nil, err
	}
	out := make([][]topk.Scored, len(scans))
	for j := range scans {
		hs := make([]*topk.Heap, workers)
		for w := range workers {
			hs[w] = heaps[w][j]
		}
		out[j] = topk.Merge(scans[j].k, hs...)
	}
	return out, nil
}

// batchQuery is one query of a batched pass.
type batchQuery struct {
	q     []float32
	qnorm float64
	k     int
}

// batchRun scores rows lo..hi-1 for every scan into its heap, blk rows at
// a time. It reports false when ctx was cancelled.
func batchRun(ctx context.Context, rows *Rows, scans []batchQuery, heaps []*topk.Heap, lo, hi, blk int) bool {
	var outs [4][]float32
	for i := range outs {
		outs[i] = make([]float32, blk)
	}
	inv := make([]float64, blk)
	for start, blocks, end := lo, 0, 0; start < hi; start, blocks = end, blocks+1 {
		if blocks%256 == 255 && ctx.Err() != nil {
			return false
		}
		var arena []float32
		arena, end = rows.Span(start, min(start+blk, hi))
		for r := range end - start {
			if sc := rows.Scale[start+r]; sc != 0 {
				inv[r] = 1 / sc
			} else {
				inv[r] = 0
			}
		}
		// The first group of four fetches the next block into cache
		// while it scores this one, which the other groups then score
		// from cache: the read of the rows overlaps their scoring.
		var next []float32
		if end < hi && len(scans) > 1 {
			next, _ = rows.Span(end, min(end+(end-start), hi))
		}
		for j := 0; j < len(scans); j += 4 {
			group := scans[j:min(j+4, len(scans))]
			var qs [4][]float32
			for g := range qs {
				// A short group repeats its last query, scored and unused.
				qs[g] = group[min(g, len(group)-1)].q
			}
			blockOuts := [4][]float32{outs[0][:end-start], outs[1][:end-start], outs[2][:end-start], outs[3][:end-start]}
			if len(group) == 1 {
				vecmath.DotMany(qs[0], arena, blockOuts[0])
			} else {
				vecmath.DotMany4(&qs, arena, next, &blockOuts)
				next = nil
			}
			for g := range group {
				offerBlock(heaps[j+g], rows, &group[g], start, blockOuts[g], inv)
			}
		}
	}
	return true
}

// offerBlock offers to h the rows from start whose dot products with sc's
// query are out, inv holding their inverse lengths. A row whose score is
// surely at most the heap's floor is skipped without the division offer
// makes: its dot product over its length, below the floor by more than
// rounding, cannot enter. Anything else goes through offer, which ranks
// exactly as the single-query scan does.
func offerBlock(h *topk.Heap, rows *Rows, sc *batchQuery, start int, out []float32, inv []float64) {
	limit := math.Inf(-1)
	if h.Full() {
		f := h.Floor() * sc.qnorm
		limit = f - math.Abs(f)*1e-9
	}
	for r := range out {
		if a := float64(out[r]) * inv[r]; a < limit && a > -math.MaxFloat64 {
			continue
		}
		offer(h, rows, sc.q, sc.qnorm, int32(start+r), out[r])
		if h.Full() {
			f := h.Floor() * sc.qnorm
			limit = f - math.Abs(f)*1e-9
		}
	}
}
