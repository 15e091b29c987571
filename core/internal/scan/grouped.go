package scan

import (
	"context"
	"slices"

	"github.com/foliovec/folio/core/internal/topk"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// Grouped is a copy of the 4-bit codes of a Nibbles' first rows, grouped
// by partition: each partition's codes lie together, so that a query that
// reads a few partitions (NibbleProbe) reads a few runs of memory with the
// sequential kernel instead of gathering rows from all over the codes. A
// Grouped is never changed once made; rows added to the Nibbles after it
// are read in place, as a tail.
type Grouped struct {
	dim    int
	stride int
	rows   int       // the rows copied: 0..rows-1
	parts  [][]group // each partition's groups, one per run its rows lie in
	bytes  int64
	read   bool // decoded from a grouped codes file (DecodeGrouped)
}

// group is the rows of one partition that lie in one run: their codes,
// copied together, on the run's grid as it was when copied.
type group struct {
	grid   *Grid
	rows   []int32 // ascending
	codes  []byte
	inv    []float32
	maxInv float32
}

// GroupNibbles copies c's codes of the rows lists name (each partition's
// rows, ascending, every row of 0..n-1 in one of them) grouped by
// partition.
func GroupNibbles(c *Nibbles, lists [][]int32) *Grouped {
	g := &Grouped{dim: c.dim, stride: c.stride, parts: make([][]group, len(lists))}
	starts := make([]int, len(c.runs)+1)
	for i, r := range c.runs {
		starts[i+1] = starts[i] + len(r.Inv)
	}
	for p, list := range lists {
		for a := 0; a < len(list); {
			r := runOf(starts, int(list[a]))
			b := a + 1
			for b < len(list) && int(list[b]) < starts[r+1] {
				b++
			}
			run := c.runs[r]
			gr := group{grid: run.Grid, rows: list[a:b:b], codes: make([]byte, (b-a)*c.stride), inv: make([]float32, b-a)}
			for j, row := range gr.rows {
				local := int(row) - starts[r]
				copy(gr.codes[j*c.stride:(j+1)*c.stride], run.Codes[local*c.stride:(local+1)*c.stride])
				gr.inv[j] = run.Inv[local]
			}
			gr.maxInv = maxOf(gr.inv)
			g.parts[p] = append(g.parts[p], gr)
			g.rows += b - a
			g.bytes += int64(len(gr.codes)) + 4*int64(len(gr.inv))
			a = b
		}
	}
	return g
}

// runOf returns the run holding row i, given the runs' first rows.
func runOf(starts []int, i int) int {
	r, found := slices.BinarySearch(starts, i)
	if !found {
		r--
	}
	for r+1 < len(starts)-1 && starts[r+1] <= i {
		r++
	}
	return r
}

// Rows is the number of rows copied: rows from it on are a tail that
// NibbleProbe reads in place.
func (g *Grouped) Rows() int { return g.rows }

// Read reports whether g was decoded from a grouped codes file
// (DecodeGrouped) rather than copied from codes (GroupNibbles).
func (g *Grouped) Read() bool { return g.read }

// Bytes is the memory the copy takes, or the size of the file it was
// decoded from.
func (g *Grouped) Bytes() int64 { return g.bytes }

// span is a stretch of codes NibbleProbe scores: a partition's group, or a
// stretch of a run in place (rows nil: first, first+1, …).
type span struct {
	q      *nibbleQuery
	codes  []byte
	inv    []float32
	maxInv float32
	rows   []int32
	first  int32
}

// NibbleProbe is NibbleTopK over every row for q read only in the
// partitions parts of g and in the tail of codes after g's rows (rows
// g.Rows() up to codes.Rows(), and the outliers of codes wherever they
// lie): the best k·factor of those by their 4-bit scores (narrowed as
// NibbleTopK narrows), scored exactly, the k best returned, best first.
// Meta is every row's metadata, as a Selection's.
func NibbleProbe[M ~map[string]any](ctx context.Context, rows *Rows, meta []M, q []float32, k, factor int, codes *Nibbles, g *Grouped, parts []int32, narrow *Narrowing) ([]topk.Scored, error) {
	sel := Selection[M]{Meta: meta, All: true}
	spans, n := probeSpans(q, codes, g, parts)
	qnorm := vecmath.Length(q)
	k = min(k, codes.rows)
	m := min(k*narrow.first(factor, codes.rows), n)
	if qnorm == 0 || k == 0 || n < k || codes.rows < len(meta) {
		return NibbleTopK(ctx, rows, sel, q, k, factor, codes, narrow)
	}
	run := func(ctx context.Context, lo, hi int, h *topk.Heap) bool {
		return scoreSpans(ctx, spans, lo, hi, h)
	}
	keep := func(c []topk.Scored) []topk.Scored {
		if narrow.serves(codes.rows) {
			c = narrow.keep(q, c, k*factor)
		}
		return withOutliers(c, codes, func(int32) bool { return true })
	}
	return rerankN(ctx, rows, sel, q, qnorm, k, m, n, run, keep)
}

// probeSpans returns the spans NibbleProbe scores for q, and their rows in
// all.
func probeSpans(q []float32, codes *Nibbles, g *Grouped, parts []int32) ([]span, int) {
	dims := vecmath.NibbleDims(codes.dim)
	prepared := map[*Grid]*nibbleQuery{}
	prep := func(grid *Grid) *nibbleQuery {
		nq, ok := prepared[grid]
		if !ok {
			v := prepareNibbles(q, grid, dims)
			nq = &v
			prepared[grid] = nq
		}
		return nq
	}
	var spans []span
	n := 0
	for _, p := range parts {
		for _, gr := range g.parts[p] {
			spans = append(spans, span{q: prep(gr.grid), codes: gr.codes, inv: gr.inv, maxInv: gr.maxInv, rows: gr.rows})
			n += len(gr.rows)
		}
	}
	start := 0
	for _, r := range codes.runs {
		end := start + len(r.Inv)
		if lo := max(start, g.rows); lo < end {
			spans = append(spans, span{q: prep(r.Grid), codes: r.Codes[(lo-start)*codes.stride : (end-start)*codes.stride],
				inv: r.Inv[lo-start : end-start], maxInv: r.MaxInv, first: int32(lo)})
			n += end - lo
		}
		start = end
	}
	return spans, n
}

// scoreSpans scores positions lo..hi-1 of spans laid end to end into h by
// their 4-bit scores; false when ctx was cancelled.
func scoreSpans(ctx context.Context, spans []span, lo, hi int, h *topk.Heap) bool {
	dots := make([]int32, quantBlock)
	pos := 0
	for i := 0; i < len(spans) && pos < hi; i++ {
		sp := &spans[i]
		size := len(sp.inv)
		a, b := max(lo, pos)-pos, min(hi, pos+size)-pos
		pos += size
		for ; a < b; a += quantBlock {
			if ctx.Err() != nil {
				return false
			}
			end := min(a+quantBlock, b)
			stride := len(sp.codes) / size
			out := dots[:end-a]
			vecmath.DotNibbleMany(sp.q.w, sp.codes[a*stride:end*stride], out)
			var at []int32
			if sp.rows != nil {
				at = sp.rows[a:end]
			}
			offerNibbles(h, sp.q, sp.first+int32(a), at, out, sp.inv[a:end], sp.maxInv)
		}
	}
	return true
}
