package scan

import (
	"context"
	"runtime"
	"slices"

	"github.com/foliovec/folio/core/internal/topk"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// Codes are the int8 codes of rows, for the quantized scan. Each vector is
// scaled on its own (symmetric, by its largest magnitude), so a write
// quantizes only the rows it adds and the codes of other rows never change.
type Codes struct {
	stride int       // row length: dim padded to vecmath.Int8Block
	codes  []int8    // rows×stride, padding zero
	factor []float32 // per row: quantization step / scoring scale
}

// Rows is the number of quantized rows.
func (c *Codes) Rows() int { return len(c.factor) }

// Bytes is the memory the codes take: the codes and their per-row factors.
func (c *Codes) Bytes() int64 { return int64(len(c.codes)) + 4*int64(len(c.factor)) }

// Quantize returns the codes of the first n rows. When they are base's
// rows with rows appended (base non-nil and compatible), base's codes are
// shared and only the new rows quantized; else every row is. It returns
// nil for rows the quantized scan does not serve: vectors of mixed
// lengths, or of length 0. Rows read through a part's Fetch (Rows.Each)
// may fail to read: the error is returned.
func Quantize(ctx context.Context, rows *Rows, n int, base *Codes) (*Codes, error) {
	if rows.Mixed || rows.Dim <= 0 {
		return nil, nil
	}
	stride := vecmath.Int8Stride(rows.Dim)
	from := 0
	c := &Codes{stride: stride}
	if base != nil && base.stride == stride && base.Rows() <= n {
		from = base.Rows()
		c.codes = slices.Grow(base.codes[:from*stride], (n-from)*stride)[:n*stride]
		c.factor = slices.Grow(base.factor[:from], n-from)[:n]
	} else {
		c.codes = make([]int8, n*stride)
		c.factor = make([]float32, n)
	}
	d := rows.Dim
	err := rows.Each(ctx, from, n, func(first int, vals []float32) {
		for i := first; i < first+len(vals)/d; i++ {
			row := c.codes[i*stride : (i+1)*stride]
			clear(row[d:]) // the padding; QuantizeInt8 writes the rest, or 0 for none
			step := vecmath.QuantizeInt8(row, vals[(i-first)*d:(i-first+1)*d])
			if sc := rows.Scale[i]; sc != 0 && step != 0 {
				c.factor[i] = float32(float64(step) / sc)
			} else {
				c.factor[i] = 0
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// QuantTopK is TopK through the int8 codes: it keeps the best k·factor
// selected rows by int8 score, then scores those exactly and returns the k
// best, best first. Every returned score is exact; the result equals the
// exact scan's whenever the exact top k are among the candidates.
func QuantTopK[M ~map[string]any](ctx context.Context, rows *Rows, sel Selection[M], q []float32, k, factor int, codes *Codes) ([]topk.Scored, error) {
	if sel.None || len(sel.Meta) == 0 {
		return nil, nil
	}
	qnorm, k, m, exact := plan(sel, q, k, factor)
	if exact {
		return TopK(ctx, rows, sel, q, k)
	}
	qs := &quantScan[M]{sel: sel, c: codes, q: make([]int8, codes.stride)}
	vecmath.QuantizeInt8(qs.q, q)
	return rerank(ctx, rows, sel, q, qnorm, k, m, qs.run, nil)
}

// plan is what a pass over codes keeps of sel for q's k best: k and
// m = k·factor, no more than the positions the pass walks, and q's length;
// exact reports that the exact scan answers instead, because q has no
// direction or every selected row would be re-ranked anyway.
func plan[M ~map[string]any](sel Selection[M], q []float32, k, factor int) (qnorm float64, kk, m int, exact bool) {
	qnorm = vecmath.Length(q)
	n := sel.candidates()
	kk = min(k, n)
	m = min(kk*factor, n)
	return qnorm, kk, m, qnorm == 0 || m >= n
}

// rerank keeps the best m of the n selected positions by the coarse
// scores run gives (run scores positions lo..hi-1 into a heap and reports
// false when ctx was cancelled), narrows them with narrow when it is set,
// then scores those exactly and returns the k best, best first.
func rerank[M ~map[string]any](ctx context.Context, rows *Rows, sel Selection[M], q []float32, qnorm float64, k, m int, run func(ctx context.Context, lo, hi int, h *topk.Heap) bool, narrow func([]topk.Scored) []topk.Scored) ([]topk.Scored, error) {
	return rerankN(ctx, rows, sel, q, qnorm, k, m, sel.candidates(), run, narrow)
}

// rerankN is rerank over n positions that run scores.
func rerankN[M ~map[string]any](ctx context.Context, rows *Rows, sel Selection[M], q []float32, qnorm float64, k, m, n int, run func(ctx context.Context, lo, hi int, h *topk.Heap) bool, narrow func([]topk.Scored) []topk.Scored) ([]topk.Scored, error) {
	workers := min(runtime.GOMAXPROCS(0), n/MinRowsPerWorker)
	var cands []topk.Scored
	if workers <= 1 {
		h := topk.New(m)
		if !run(ctx, 0, n, h) {
			return nil, ctx.Err()
		}
		cands = h.Items()
	} else {
		heaps := make([]*topk.Heap, workers)
		for w := range heaps {
			heaps[w] = topk.New(m)
		}
		if err := split(ctx, 0, n, workers, func(w, lo, hi int) { run(ctx, lo, hi, heaps[w]) }); err != nil {
			return nil, err
		}
		cands = topk.Merge(m, heaps...)
	}
	if narrow != nil {
		cands = narrow(cands)
	}
	return rescore(ctx, rows, sel, q, qnorm, k, cands)
}

// Narrowing is the int8 stage of a 4-bit scan (NibbleTopK, NibbleBatch):
// the 4-bit pass keeps k·Factor candidates, and their int8 scores keep
// the k·factor best of those (factor: the scan's own) for the exact
// re-rank, which then reads fewer rows for the same recall.
type Narrowing struct {
	Codes  *Codes
	Factor int
}

// first is the candidates per result the 4-bit pass keeps: k·Factor with
// a Narrowing that covers the rows' n positions, else factor.
func (nw *Narrowing) first(factor, n int) int {
	if !nw.serves(n) {
		return factor
	}
	return max(nw.Factor, factor)
}

// serves reports whether nw narrows a scan of n rows.
func (nw *Narrowing) serves(n int) bool {
	return nw != nil && nw.Codes != nil && nw.Codes.Rows() >= n && nw.Factor > 0
}

// keep returns the m of cands with the best int8 scores for q (all of
// them when there are m or fewer).
func (nw *Narrowing) keep(q []float32, cands []topk.Scored, m int) []topk.Scored {
	if len(cands) <= m {
		return cands
	}
	c := nw.Codes
	slots := make([]int32, len(cands))
	for i, s := range cands {
		slots[i] = s.Slot
	}
	slices.Sort(slots) // the codes read in order
	qq := make([]int8, c.stride)
	vecmath.QuantizeInt8(qq, q)
	dots := make([]int32, len(slots))
	vecmath.DotInt8ManyIdx(qq, c.codes, slots, dots)
	h := topk.New(m)
	for i, slot := range slots {
		key := topk.Undefined
		if f := c.factor[slot]; f != 0 {
			key = float64(dots[i]) * float64(f)
		}
		if h.Full() && key <= h.Floor() {
			continue
		}
		h.Offer(topk.Scored{Key: key, Slot: slot})
	}
	return h.Items()
}

// rescore scores the candidates exactly and returns the k best, best
// first. They are offered in row order, so that equal scores rank in
// storage order, as in the exact scan.
func rescore[M ~map[string]any](ctx context.Context, rows *Rows, sel Selection[M], q []float32, qnorm float64, k int, cands []topk.Scored) ([]topk.Scored, error) {
	slots := make([]int32, len(cands))
	for i, c := range cands {
		slots[i] = c.Slot
	}
	slices.Sort(slots)
	exact := &scan[M]{rows: rows, sel: sel, q: q, qnorm: qnorm, k: k}
	dots := make([]float32, len(slots))
	if err := exact.fetchDots(ctx, slots, dots); err != nil {
		return nil, err
	}
	h := topk.New(k)
	for i, slot := range slots {
		exact.offer(h, slot, dots[i])
	}
	return topk.Merge(k, h), nil
}

// quantBlock is the number of rows scored per int8 kernel call: more than
// block, because the kernel prefetches rows 16 KiB ahead within a call.
const quantBlock = 2048

// quantScan is one query's int8 pass over a selection.
type quantScan[M ~map[string]any] struct {
	sel Selection[M]
	c   *Codes
	q   []int8
}

// run scores positions lo..hi-1 (rows, or indexes into the candidates)
// into h by their int8 dot products. It reports false when ctx was
// cancelled.
func (qs *quantScan[M]) run(ctx context.Context, lo, hi int, h *topk.Heap) bool {
	c := qs.c
	out := make([]int32, quantBlock)
	idx := make([]int32, quantBlock)
	for start, blocks := lo, 0; start < hi; start, blocks = start+quantBlock, blocks+1 {
		if blocks%16 == 15 && ctx.Err() != nil {
			return false
		}
		end := min(start+quantBlock, hi)
		if qs.sel.All {
			vecmath.DotInt8Many(qs.q, c.codes[start*c.stride:end*c.stride], out[:end-start])
			for j := range end - start {
				qs.offer(h, int32(start+j), out[j])
			}
			continue
		}
		m := qs.sel.gather(start, end, idx)
		vecmath.DotInt8ManyIdx(qs.q, c.codes, idx[:m], out[:m])
		for j := range m {
			qs.offer(h, idx[j], out[j])
		}
	}
	return true
}

// offer ranks a row by its int8 score: the dot product times the row's
// factor, proportional to the approximate cosine score.
func (qs *quantScan[M]) offer(h *topk.Heap, slot int32, dot int32) {
	key := topk.Undefined
	if f := qs.c.factor[slot]; f != 0 {
		key = float64(dot) * float64(f)
	}
	if h.Full() && key <= h.Floor() {
		return
	}
	h.Offer(topk.Scored{Key: key, Slot: slot})
}
