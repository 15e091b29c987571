package scan

import (
	"context"
	"math"
	"runtime"
	"slices"

	"github.com/foliovec/folio/core/internal/topk"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// Nibbles are 4-bit codes of rows, for the coarse first pass of a
// quantized scan: half the bytes of int8 codes, an eighth of the float32
// rows. Each value is coded on a grid of its dimension (Grid: 16 steps
// across the dimension's mean ± NibbleSpread standard deviations, values
// outside clamped), so a code holds more of what tells rows apart than a
// per-row scale would. Rows are coded in runs, each with its grid: a run
// of rows appended later is coded on the grid of the run before it, so a
// write codes only the rows it adds.
type Nibbles struct {
	dim, stride int // values a row; bytes a packed row
	runs        []NibbleRun
	rows        int
}

// NibbleRun is a run of consecutive rows coded on one grid.
type NibbleRun struct {
	Grid  *Grid
	Codes []byte    // rows × NibbleStride(dim), packed (vecmath.PackNibbles)
	Inv   []float32 // per row: 1 / its scoring scale, 0 for a row with no direction
	// MaxInv is the largest of Inv (NewNibbles and QuantizeNibbles set
	// it): the 4-bit pass skips a row on its integer score alone when
	// even this inverse scale would not rank it.
	MaxInv float32
	// Sealed runs never grow (their codes may be read-only memory, such
	// as a mapped file): rows after them start a run of their own.
	Sealed bool
}

// Grid is the coding grid of each dimension: value ≈ Lo + Step·code.
type Grid struct {
	Lo, Step []float32
	// From is the number of rows the grid was measured on.
	From int
}

// NibbleSpread is how many standard deviations either side of its mean a
// dimension's grid spans. Measured on clustered 384-dimension data: at
// 1M rows, 200 candidates held 0.999 of the exact top 10 at 2.5 and 0.997
// at 3; on tight clusters (20,000 rows), 400 held all of it at 2 and 2.5,
// 0.95 at 3.
const NibbleSpread = 2.5

// Rows is the number of coded rows.
func (c *Nibbles) Rows() int { return c.rows }

// Runs returns the runs, in row order.
func (c *Nibbles) Runs() []NibbleRun { return c.runs }

// NewNibbles returns codes of dim values a row made of runs (such as runs
// read back from files); nil when a run's lengths disagree.
func NewNibbles(dim int, runs []NibbleRun) *Nibbles {
	c := &Nibbles{dim: dim, stride: vecmath.NibbleStride(dim), runs: runs}
	for i, r := range runs {
		if len(r.Codes) != len(r.Inv)*c.stride || len(r.Grid.Lo) != dim || len(r.Grid.Step) != dim {
			return nil
		}
		c.rows += len(r.Inv)
		runs[i].MaxInv = maxOf(r.Inv)
	}
	return c
}

// QuantizeNibbles returns the 4-bit codes of the first n rows. When they
// are base's rows with rows appended (base non-nil and compatible), base's
// sealed runs (read from files) are shared and the rows after them form
// one run: base's own when its grid still fits, the new rows then coded on
// it. A new last run is coded on the grid of the sealed run before it, or
// when there is none on a grid measured on its rows, measured again each
// time they double. It returns nil for rows the quantized scan does not
// serve: vectors of mixed lengths, or of length 0. Rows read through a
// part's Fetch (Rows.Each) may fail to read: the error is returned.
func QuantizeNibbles(ctx context.Context, rows *Rows, n int, base *Nibbles) (*Nibbles, error) {
	if rows.Mixed || rows.Dim <= 0 {
		return nil, nil
	}
	d := rows.Dim
	c := &Nibbles{dim: d, stride: vecmath.NibbleStride(d), rows: n}
	start := 0 // the last run's first row
	if base != nil && (base.dim != d || base.rows > n) {
		base = nil
	}
	if base != nil {
		for _, r := range base.runs {
			if !r.Sealed {
				break
			}
			c.runs = append(c.runs, r)
			start += len(r.Inv)
		}
	}
	from := start // the first row to code
	var last NibbleRun
	switch {
	case base != nil && len(c.runs) < len(base.runs) && (len(c.runs) > 0 || base.runs[len(c.runs)].Grid.From*2 >= n-start):
		last = base.runs[len(c.runs)]
		from = base.rows
	case len(c.runs) > 0:
		last.Grid = c.runs[len(c.runs)-1].Grid
	default:
		var err error
		if last.Grid, err = measureRowsGrid(ctx, rows, n); err != nil {
			return nil, err
		}
	}
	if from == n && start < n {
		c.runs = append(c.runs, last)
		return c, nil
	}
	add := n - from
	last.Codes = slices.Grow(last.Codes, add*c.stride)[:(n-start)*c.stride]
	last.Inv = slices.Grow(last.Inv, add)[:n-start]
	err := rows.Each(ctx, from, n, func(first int, vals []float32) {
		buf := make([]uint8, d)
		for i := first; i < first+len(vals)/d; i++ {
			j := i - start
			CodeNibbles(last.Codes[j*c.stride:(j+1)*c.stride], buf, vals[(i-first)*d:(i-first+1)*d], last.Grid)
			last.Inv[j] = 0
			if sc := rows.Scale[i]; sc != 0 {
				last.Inv[j] = float32(1 / sc)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	last.MaxInv = max(last.MaxInv, maxOf(last.Inv[from-start:]))
	if start < n {
		c.runs = append(c.runs, last)
	}
	return c, nil
}

// measureRowsGrid is MeasureGrid of the first n rows, those of fetch-only
// parts read through Fetch.
func measureRowsGrid(ctx context.Context, rows *Rows, n int) (*Grid, error) {
	if !rows.FetchOnly() {
		return MeasureGrid(rows.Dim, n, rows.Vector), nil
	}
	var err error
	g := MeasureGrid(rows.Dim, n, func(i int) []float32 {
		v := make([]float32, rows.Dim)
		if e := rows.ReadVector(ctx, v, i); e != nil && err == nil {
			err = e
		}
		return v
	})
	return g, err
}

// maxOf is the largest of v, 0 when v is empty.
func maxOf(v []float32) float32 {
	var m float32
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// CodeNibbles codes v on grid g into the packed row dst, using buf (of
// len(v)) for the codes.
func CodeNibbles(dst []byte, buf []uint8, v []float32, g *Grid) {
	for j, x := range v {
		code := 0.0
		if st := g.Step[j]; st > 0 {
			code = math.Round((float64(x) - float64(g.Lo[j])) / float64(st))
		}
		if !(code > 0) { // NaN too
			code = 0
		}
		buf[j] = uint8(min(code, 15))
	}
	vecmath.PackNibbles(dst, buf)
}

// gridSample is the most rows a grid is measured on: evenly spaced rows
// past it.
const gridSample = 1 << 17

// MeasureGrid measures the grid of n rows of d values, row(i) giving each
// (sampled evenly when there are more than gridSample): each dimension's
// mean ± NibbleSpread standard deviations, in 15 steps.
func MeasureGrid(d, n int, row func(i int) []float32) *Grid {
	g := &Grid{Lo: make([]float32, d), Step: make([]float32, d), From: n}
	sample := min(n, gridSample)
	sum, sq := make([]float64, d), make([]float64, d)
	for s := range sample {
		v := row(int(int64(s) * int64(n) / int64(sample)))
		for j, x := range v {
			if f := float64(x); !math.IsNaN(f) && !math.IsInf(f, 0) {
				sum[j] += f
				sq[j] += f * f
			}
		}
	}
	for j := range d {
		if sample == 0 {
			break
		}
		mean := sum[j] / float64(sample)
		sd := math.Sqrt(max(0, sq[j]/float64(sample)-mean*mean))
		g.Lo[j] = float32(mean - NibbleSpread*sd)
		g.Step[j] = float32(2 * NibbleSpread * sd / 15)
	}
	return g
}

// nibbleQuery is a query's weights on one grid: a row's approximate dot
// product with the query is Base + Scale·(weights · codes).
type nibbleQuery struct {
	w     []int8
	base  float64
	scale float64
}

func prepareNibbles(q []float32, g *Grid, dims int) nibbleQuery {
	w := make([]float64, len(q))
	nq := nibbleQuery{w: make([]int8, dims)}
	var most float64
	for j, x := range q {
		w[j] = float64(x) * float64(g.Step[j])
		most = max(most, math.Abs(w[j]))
		nq.base += float64(x) * float64(g.Lo[j])
	}
	if most == 0 {
		return nq
	}
	nq.scale = most / 127
	for j, x := range w {
		nq.w[j] = int8(math.Round(x / nq.scale))
	}
	return nq
}

// NibbleTopK is QuantTopK through 4-bit codes: it keeps the best k·factor
// selected rows by their 4-bit score (with narrow set, the best
// k·narrow.Factor, of which their int8 scores keep k·factor), then scores
// those exactly and returns the k best, best first. Every returned score
// is exact.
func NibbleTopK[M ~map[string]any](ctx context.Context, rows *Rows, sel Selection[M], q []float32, k, factor int, codes *Nibbles, narrow *Narrowing) ([]topk.Scored, error) {
	if sel.None || len(sel.Meta) == 0 {
		return nil, nil
	}
	qnorm, k, m, exact := plan(sel, q, k, narrow.first(factor, len(sel.Meta)))
	if exact && qnorm != 0 && rows.FetchOnly() {
		// Every selected row is re-ranked, read through its part.
		var all []topk.Scored
		sel.Each(func(slot int32) { all = append(all, topk.Scored{Slot: slot}) })
		return rescore(ctx, rows, sel, q, qnorm, k, all)
	}
	if exact || codes.rows < len(sel.Meta) {
		return TopK(ctx, rows, sel, q, k)
	}
	var keep func([]topk.Scored) []topk.Scored
	if narrow.serves(len(sel.Meta)) {
		keep = func(c []topk.Scored) []topk.Scored { return narrow.keep(q, c, k*factor) }
	}
	return rerank(ctx, rows, sel, q, qnorm, k, m, newNibbleScan(sel, q, codes).run, keep)
}

// newNibbleScan prepares q's 4-bit pass over sel: its weights on each
// run's grid.
func newNibbleScan[M ~map[string]any](sel Selection[M], q []float32, codes *Nibbles) *nibbleScan[M] {
	ns := &nibbleScan[M]{sel: sel, c: codes, starts: make([]int, len(codes.runs)+1), qs: make([]nibbleQuery, len(codes.runs))}
	dims := vecmath.NibbleDims(codes.dim)
	for i, r := range codes.runs {
		ns.starts[i+1] = ns.starts[i] + len(r.Inv)
		if i > 0 && r.Grid == codes.runs[i-1].Grid {
			ns.qs[i] = ns.qs[i-1]
			continue
		}
		ns.qs[i] = prepareNibbles(q, r.Grid, dims)
	}
	return ns
}

// nibbleScan is one query's 4-bit pass over a selection.
type nibbleScan[M ~map[string]any] struct {
	sel    Selection[M]
	c      *Nibbles
	starts []int // first row of each run, then the rows
	qs     []nibbleQuery
}

// run scores positions lo..hi-1 into h by their 4-bit scores; false when
// ctx was cancelled.
func (ns *nibbleScan[M]) run(ctx context.Context, lo, hi int, h *topk.Heap) bool {
	out := make([]int32, quantBlock)
	idx := make([]int32, quantBlock)
	stride := ns.c.stride
	for start, blocks := lo, 0; start < hi; blocks++ {
		if blocks%16 == 15 && ctx.Err() != nil {
			return false
		}
		end := min(start+quantBlock, hi)
		if ns.sel.All {
			r := ns.run1(start)
			end = min(end, ns.starts[r+1])
			run, off := ns.c.runs[r], ns.starts[r]
			vecmath.DotNibbleMany(ns.qs[r].w, run.Codes[(start-off)*stride:(end-off)*stride], out[:end-start])
			offerNibbles(h, &ns.qs[r], int32(start), out[:end-start], run.Inv[start-off:end-off], run.MaxInv)
			start = end
			continue
		}
		m := ns.sel.gather(start, end, idx)
		for a := 0; a < m; {
			r := ns.run1(int(idx[a]))
			off, b := ns.starts[r], a+1
			for b < m && int(idx[b]) < ns.starts[r+1] {
				b++
			}
			local := idx[a:b]
			for j := range local {
				local[j] -= int32(off)
			}
			vecmath.DotNibbleManyIdx(ns.qs[r].w, ns.c.runs[r].Codes, local, out[:b-a])
			for j := range local {
				local[j] += int32(off)
				ns.offer(h, r, local[j], out[j])
			}
			a = b
		}
		start = end
	}
	return true
}

// offerNibbles offers rows first, first+1, … by their 4-bit scores dots
// and inverse scales inv (none larger than maxInv), as offer does. Once
// the heap is full, a row whose integer score is below what even maxInv
// would need to pass the heap's floor is skipped without its key.
func offerNibbles(h *topk.Heap, q *nibbleQuery, first int32, dots []int32, inv []float32, maxInv float32) {
	inv = inv[:len(dots)]
	base, scale := q.base, q.scale
	floor := math.Inf(-1)
	skip := int64(math.MinInt64) // rows scoring below it cannot pass floor
	setFloor := func() {
		floor = h.Floor()
		skip = math.MinInt64
		if floor > 0 && maxInv > 0 && scale > 0 {
			// key = (base + scale·dot)·inv > floor needs
			// base + scale·dot > floor/maxInv.
			if t := math.Floor((floor/float64(maxInv) - base) / scale); t > math.MinInt32 && t < math.MaxInt32 {
				skip = int64(t)
			}
		}
	}
	if h.Full() {
		setFloor()
	}
	for j, dot := range dots {
		if int64(dot) < skip {
			continue
		}
		key := (base + scale*float64(dot)) * float64(inv[j])
		if key <= floor {
			continue
		}
		if inv[j] == 0 {
			key = topk.Undefined
			if h.Full() {
				continue
			}
		}
		h.Offer(topk.Scored{Key: key, Slot: first + int32(j)})
		if h.Full() {
			setFloor()
		}
	}
}

// run1 returns the run of row i (a run with rows: empty runs share their
// start with the next).
func (ns *nibbleScan[M]) run1(i int) int {
	r, found := slices.BinarySearch(ns.starts, i)
	if !found {
		r--
	}
	for r+1 < len(ns.c.runs) && ns.starts[r+1] <= i {
		r++
	}
	return r
}

// offer ranks a row of run r by its approximate cosine score times the
// query's length.
func (ns *nibbleScan[M]) offer(h *topk.Heap, r int, slot int32, dot int32) {
	key := topk.Undefined
	if inv := ns.c.runs[r].Inv[int(slot)-ns.starts[r]]; inv != 0 {
		q := &ns.qs[r]
		key = (q.base + q.scale*float64(dot)) * float64(inv)
	}
	if h.Full() && key <= h.Floor() {
		return
	}
	h.Offer(topk.Scored{Key: key, Slot: slot})
}

// NibbleBatch answers unfiltered queries over the first n rows as
// NibbleTopK answers each (result j: the ks[j] best rows for queries[j]),
// in one pass over the codes: each block of codes is read from memory once
// for every query while it sits in the CPU cache, then each query's
// candidates are narrowed (with narrow set) and scored exactly. Queries
// NibbleTopK would answer exactly (no direction, or every row a
// candidate) get Batch's exact pass.
func NibbleBatch(ctx context.Context, rows *Rows, n int, queries [][]float32, ks []int, factor int, codes *Nibbles, narrow *Narrowing) ([][]topk.Scored, error) {
	if codes.rows < n {
		return Batch(ctx, rows, n, queries, ks)
	}
	rerankFactor, factor := factor, narrow.first(factor, n)
	out := make([][]topk.Scored, len(queries))
	var coded, exact []int // the queries of each pass
	var scans []*nibbleScan[map[string]any]
	for j, q := range queries {
		if k := min(ks[j], n); k > 0 && k*factor < n && vecmath.Length(q) != 0 {
			coded = append(coded, j)
			scans = append(scans, newNibbleScan(Selection[map[string]any]{All: true}, q, codes))
		} else {
			exact = append(exact, j)
		}
	}
	if len(exact) > 0 && rows.FetchOnly() {
		// The exact pass does not read fetch-only rows: a query with no
		// direction has no row to read, another re-ranks every row.
		for _, j := range exact {
			q, k := queries[j], min(ks[j], n)
			if qn := vecmath.Length(q); qn == 0 || k == 0 {
				out[j] = undefinedRows(k)
			} else {
				all := make([]topk.Scored, n)
				for i := range all {
					all[i].Slot = int32(i)
				}
				var err error
				if out[j], err = rescore(ctx, rows, Selection[map[string]any]{}, q, qn, k, all); err != nil {
					return nil, err
				}
			}
		}
		exact = nil
	}
	if len(exact) > 0 {
		qs, kk := make([][]float32, len(exact)), make([]int, len(exact))
		for i, j := range exact {
			qs[i], kk[i] = queries[j], ks[j]
		}
		res, err := Batch(ctx, rows, n, qs, kk)
		if err != nil {
			return nil, err
		}
		for i, j := range exact {
			out[j] = res[i]
		}
	}
	if len(coded) == 0 {
		return out, nil
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), n/MinRowsPerWorker))
	heaps := make([][]*topk.Heap, len(coded)) // per query, per worker
	for b, j := range coded {
		heaps[b] = make([]*topk.Heap, workers)
		for w := range workers {
			heaps[b][w] = topk.New(min(ks[j], n) * factor)
		}
	}
	pass := func(w, lo, hi int) {
		dots := make([]int32, quantBlock)
		for start := lo; start < hi; {
			r := scans[0].run1(start)
			end := min(start+quantBlock, hi, scans[0].starts[r+1])
			run, off := codes.runs[r], scans[0].starts[r]
			block := run.Codes[(start-off)*codes.stride : (end-off)*codes.stride]
			for b, ns := range scans {
				vecmath.DotNibbleMany(ns.qs[r].w, block, dots[:end-start])
				offerNibbles(heaps[b][w], &ns.qs[r], int32(start), dots[:end-start], run.Inv[start-off:end-off], run.MaxInv)
			}
			start = end
		}
	}
	if err := split(ctx, 0, n, workers, pass); err != nil {
		return nil, err
	}
	for b, j := range coded {
		q, k := queries[j], min(ks[j], n)
		cands := topk.Merge(k*factor, heaps[b]...)
		if narrow.serves(n) {
			cands = narrow.keep(q, cands, k*rerankFactor)
		}
		var err error
		if out[j], err = rescore(ctx, rows, Selection[map[string]any]{}, q, vecmath.Length(q), k, cands); err != nil {
			return nil, err
		}
	}
	return out, nil
}
