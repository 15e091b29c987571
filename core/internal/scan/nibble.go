package scan

import (
	"cmp"
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
//
// Rows far outside their grid (OutlierShare) have codes that say little about
// them: they are listed in their run, and every query scores them
// exactly besides the candidates the codes pick. MeasureGrid leaves rows
// much longer than most out of its statistics, so that a few of them
// cannot stretch the grid of every other row.
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
	// Outliers are the rows of the run (numbered from its first, in
	// increasing order) that lie far outside its grid (OutlierShare): the 4-bit
	// pass cannot rank them, so every query scores them exactly.
	// At most MaxOutliers of the run's rows.
	Outliers []int32
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

// Bytes is the memory the codes take: each run's packed codes, inverse
// scales and outlier list (its grid not counted: a few values a dimension).
func (c *Nibbles) Bytes() int64 {
	var b int64
	for _, r := range c.runs {
		b += int64(len(r.Codes)) + 4*int64(len(r.Inv)) + 4*int64(len(r.Outliers))
	}
	return b
}

// NewNibbles returns codes of dim values a row made of runs (such as runs
// read back from files); nil when a run's lengths disagree.
func NewNibbles(dim int, runs []NibbleRun) *Nibbles {
	c := &Nibbles{dim: dim, stride: vecmath.NibbleStride(dim), runs: runs}
	for i, r := range runs {
		if len(r.Codes) != len(r.Inv)*c.stride || len(r.Grid.Lo) != dim || len(r.Grid.Step) != dim || !validOutliers(r.Outliers, len(r.Inv)) {
			return nil
		}
		c.rows += len(r.Inv)
		runs[i].MaxInv = maxOf(r.Inv)
	}
	return c
}

// validOutliers reports whether rows lists rows of a run of n rows, in
// increasing order.
func validOutliers(rows []int32, n int) bool {
	for i, r := range rows {
		if r < 0 || int(r) >= n || (i > 0 && r <= rows[i-1]) {
			return false
		}
	}
	return true
}

// Outliers is the number of rows listed as outliers in c's runs.
func (c *Nibbles) Outliers() int {
	n := 0
	for _, r := range c.runs {
		n += len(r.Outliers)
	}
	return n
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
	shares := make([]float64, add)
	err := rows.Each(ctx, from, n, func(first int, vals []float32) {
		buf := make([]uint8, d)
		for i := first; i < first+len(vals)/d; i++ {
			j := i - start
			shares[i-from] = CodeNibbles(last.Codes[j*c.stride:(j+1)*c.stride], buf, vals[(i-first)*d:(i-first+1)*d], last.Grid)
			last.Inv[j] = 0
			if sc := rows.Scale[i]; sc != 0 {
				last.Inv[j] = float32(1 / sc)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	// The rows coded again drop out of the list (PickOutliers clips it: its
	// spare room may be another state's).
	keep, _ := slices.BinarySearch(last.Outliers, int32(from-start))
	last.Outliers = PickOutliers(last.Outliers[:keep], from-start, shares, n-start)
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
// len(v)) for the codes, and returns the share of v's length that lies
// outside the grid (Outside).
func CodeNibbles(dst []byte, buf []uint8, v []float32, g *Grid) float64 {
	var out, sq float64 // the squared length of v outside the grid, and of v
	for j, x := range v {
		f, lo, st := float64(x), float64(g.Lo[j]), float64(g.Step[j])
		code := 0.0
		if st > 0 {
			code = math.Round((f - lo) / st)
		}
		if !(code > 0) { // NaN too
			code = 0
		}
		buf[j] = uint8(min(code, 15))
		if f == f {
			sq += f * f
			if e := f - min(max(f, lo), lo+15*max(st, 0)); e != 0 {
				out += e * e
			}
		}
	}
	vecmath.PackNibbles(dst, buf)
	return share(out, sq)
}

// OutlierShare is the share of a row's length that may lie outside its
// grid before the row is an outlier: its codes then misplace it by more
// than that share of its length, which no re-rank of candidates makes up
// for, so queries score it exactly instead. The rows a grid is measured on
// lie outside it by at most 9 to 16 % of their length (the worst of 20,000
// clustered or Gaussian vectors of 8 to 384 dimensions).
const OutlierShare = 0.25

// MaxOutliers is the most outliers a run of rows lists: a sixteenth of
// its rows, those farthest outside first, so that rows no grid fits (such
// as sparse vectors, a fifth of which lie outside) cost at most that many
// exact scores a query.
func MaxOutliers(rows int) int { return (rows + 15) / 16 }

// share is the share of a row's length outside its grid, from its squared
// length sq and the squared length out of it outside: 1 for a row of
// infinite length.
func share(out, sq float64) float64 {
	switch {
	case math.IsInf(out, 0) || math.IsInf(sq, 0):
		return 1
	case sq == 0:
		return 0
	}
	return math.Sqrt(out / sq)
}

// PickOutliers picks the outliers of a run of rows coded on one grid: given
// the share outside (CodeNibbles) of its rows first..first+len(shares)-1
// and the run's outliers listed before them (of lower rows), it returns the
// list with the new rows' outliers added, no more than MaxOutliers(rows)
// in all (rows: the run's rows), those farthest outside first, in
// increasing order.
func PickOutliers(listed []int32, first int, shares []float64, rows int) []int32 {
	var fresh []int32
	for i, sh := range shares {
		if sh > OutlierShare {
			fresh = append(fresh, int32(first+i))
		}
	}
	room := MaxOutliers(rows) - len(listed)
	if room <= 0 || len(fresh) == 0 {
		return listed
	}
	if len(fresh) > room {
		slices.SortStableFunc(fresh, func(a, b int32) int {
			return cmp.Compare(shares[int(b)-first], shares[int(a)-first])
		})
		fresh = fresh[:room]
		slices.Sort(fresh)
	}
	return append(slices.Clip(listed), fresh...)
}

// gridSample is the most rows a grid is measured on: evenly spaced rows
// past it.
const gridSample = 1 << 17

// gridLongRows is how much longer than the median sampled row a row may
// be and still count in a grid's statistics, in powers of two: rows 16
// times the median length or more are always left out, rows 8 times or
// more may be (lengths are told apart by their binary exponent), so that
// one mis-scaled vector cannot stretch every dimension's grid until the
// other rows all share a few codes.
const gridLongRows = 3

// MeasureGrid measures the grid of n rows of d values, row(i) giving each
// (sampled evenly when there are more than gridSample): each dimension's
// mean ± NibbleSpread standard deviations, in 15 steps, over the sampled
// rows but those far longer than most (gridLongRows). Each row is read
// once.
func MeasureGrid(d, n int, row func(i int) []float32) *Grid {
	g := &Grid{Lo: make([]float32, d), Step: make([]float32, d), From: n}
	sample := min(n, gridSample)
	if sample == 0 {
		return g
	}
	// The sums of each dimension's values and squares are kept apart by
	// the binary exponent of the rows' lengths, so that the rows too long
	// for the statistics can be left out once the median length is known.
	type sums struct {
		rows    int
		sum, sq []float64
	}
	byExp := map[int]*sums{}
	exps := make([]int, 0, sample)
	for s := range sample {
		v := row(int(int64(s) * int64(n) / int64(sample)))
		var length float64
		for _, x := range v {
			if f := float64(x); !math.IsNaN(f) && !math.IsInf(f, 0) {
				length += f * f
			}
		}
		_, exp := math.Frexp(math.Sqrt(length))
		exps = append(exps, exp)
		acc := byExp[exp]
		if acc == nil {
			acc = &sums{sum: make([]float64, d), sq: make([]float64, d)}
			byExp[exp] = acc
		}
		acc.rows++
		for j, x := range v {
			if f := float64(x); !math.IsNaN(f) && !math.IsInf(f, 0) {
				acc.sum[j] += f
				acc.sq[j] += f * f
			}
		}
	}
	slices.Sort(exps)
	limit := exps[len(exps)/2] + gridLongRows
	sum, sq := make([]float64, d), make([]float64, d)
	rows := 0
	for _, exp := range slices.Compact(exps) { // in order: the same sums every time
		acc := byExp[exp]
		if exp > limit {
			break
		}
		rows += acc.rows
		for j := range d {
			sum[j] += acc.sum[j]
			sq[j] += acc.sq[j]
		}
	}
	for j := range d {
		mean := sum[j] / float64(rows)
		sd := math.Sqrt(max(0, sq[j]/float64(rows)-mean*mean))
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
	narrows := narrow.serves(len(sel.Meta))
	keep := func(c []topk.Scored) []topk.Scored {
		if narrows {
			c = narrow.keep(q, c, k*factor)
		}
		return withOutliers(c, codes, sel.selects)
	}
	return rerank(ctx, rows, sel, q, qnorm, k, m, newNibbleScan(sel, q, codes).run, keep)
}

// withOutliers returns cands with the outlier rows of codes (NibbleRun's
// Outliers) that selected reports selected and cands lacks: the exact
// re-rank scores them whatever their codes say.
func withOutliers(cands []topk.Scored, codes *Nibbles, selected func(slot int32) bool) []topk.Scored {
	if codes.Outliers() == 0 {
		return cands
	}
	have := make([]int32, len(cands))
	for i, c := range cands {
		have[i] = c.Slot
	}
	slices.Sort(have)
	start := 0
	for _, r := range codes.runs {
		for _, o := range r.Outliers {
			slot := int32(start) + o
			if _, found := slices.BinarySearch(have, slot); !found && selected(slot) {
				cands = append(cands, topk.Scored{Key: topk.Undefined, Slot: slot})
			}
		}
		start += len(r.Inv)
	}
	return cands
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
			offerNibbles(h, &ns.qs[r], int32(start), nil, out[:end-start], run.Inv[start-off:end-off], run.MaxInv)
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
func offerNibbles(h *topk.Heap, q *nibbleQuery, first int32, at []int32, dots []int32, inv []float32, maxInv float32) {
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
		slot := first + int32(j)
		if at != nil {
			slot = at[j]
		}
		h.Offer(topk.Scored{Key: key, Slot: slot})
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
				offerNibbles(heaps[b][w], &ns.qs[r], int32(start), nil, dots[:end-start], run.Inv[start-off:end-off], run.MaxInv)
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
		cands = withOutliers(cands, codes, func(slot int32) bool { return int(slot) < n })
		var err error
		if out[j], err = rescore(ctx, rows, Selection[map[string]any]{}, q, vecmath.Length(q), k, cands); err != nil {
			return nil, err
		}
	}
	return out, nil
}
