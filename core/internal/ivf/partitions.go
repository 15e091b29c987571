package ivf

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/foliovec/folio/core/internal/vecmath"
)

// Source is the rows partitions are built over: Rows of Dim values each.
type Source interface {
	Rows() int
	Dim() int
	// Read copies row i into dst (Dim values).
	Read(ctx context.Context, dst []float32, i int) error
	// Each calls fn with the values of rows lo..hi-1 in runs (fn's first
	// row and its values), possibly on several goroutines at once.
	Each(ctx context.Context, lo, hi int, fn func(first int, vals []float32)) error
}

// Partitions are the rows of an index grouped by their nearest centroid:
// a query reads the rows of the partitions whose centroids are most similar
// to it (Choose, RowsOf) instead of every row. A value is never changed
// once built, so queries may share it.
type Partitions struct {
	C      Centroids // the partitions' (leaf) centroids
	top    Centroids // the centroids above them
	leaves []int     // top centroid i's leaves are C's leaves[i]..leaves[i+1]-1
	lists  [][]int32 // each partition's rows, ascending
	n      int       // rows assigned: 0..n-1

	// Gap is how far a partition's centroid may lie behind the query's
	// nearest, in cosine, and still be probed: a query probes every
	// partition whose centroid's cosine with it is within Gap of the
	// best, so that a query among many near partitions (a crowded
	// neighbourhood) probes many, and one whose partition stands apart
	// probes one. Calibrate sets it; until then every partition is probed.
	Gap float32
	// Cap is the most partitions a query probes, the nearest first: a
	// query among very many near partitions would otherwise read most of
	// the codes. Calibrate sets it with Gap, so that together they find
	// the target recall; until then it is K.
	Cap int
	// Probes is the mean number of partitions Calibrate's queries probed
	// at Gap, and Read the mean share of the rows they held.
	Probes, Read float64
	// Recall is the share of the top k of a scan of every row that
	// Calibrate's queries found in the partitions they probed, and Target
	// the recall Calibrate was asked for.
	Recall, Target float64
	// Floor is the cosine between a query and its most similar centroid
	// below which the query lies outside the data the calibration saw:
	// such a query is answered from every row.
	Floor float32
	// Pays reports whether probing reads less than half of the rows on
	// Calibrate's queries: when it does not, queries read every row.
	Pays bool

	bitmaps *sync.Pool // *[]uint64 of at least n bits, all clear
}

// K is the number of partitions.
func (p *Partitions) K() int { return p.C.K() }

// Rows is the number of rows assigned to the partitions.
func (p *Partitions) Rows() int { return p.n }

// Sizes returns the number of rows in each partition.
func (p *Partitions) Sizes() []int {
	out := make([]int, len(p.lists))
	for i, l := range p.lists {
		out[i] = len(l)
	}
	return out
}

// PartitionsFor is the number of partitions Build makes for n rows: about
// the square root of n (each partition then as large as their number, so
// that a query's centroids and its probed rows cost alike), at least 1.
func PartitionsFor(n int) int {
	return max(1, int(math.Sqrt(float64(n))))
}

// samplePerCentroid is the rows per centroid Build trains on: k-means
// needs a few dozen rows per centroid to place it, and more only cost
// time.
const samplePerCentroid = 40

// trainRounds is Build's most k-means rounds: on a sample, later rounds
// move centroids less than the sample's own noise.
const trainRounds = 10

// Build groups src's rows into about k partitions, drawn by seed, in two
// levels so that neither training nor assigning a row costs k dot
// products: about √k top centroids are trained on a sample of the rows,
// then each top centroid's share of the sample trains its own leaf
// centroids, as many as its share of k. A row's partition is the most
// similar leaf under its two most similar top centroids. A partition that
// ends with more than twice its share of the rows (k-means leaves such
// hubs where clusters crowd) is split by k-means on its own rows, so that
// a query's nearest partitions hold about as many rows as any. Probes is
// K until Calibrate sets it.
func Build(ctx context.Context, src Source, k int, seed uint64) (*Partitions, error) {
	n, dim := src.Rows(), src.Dim()
	if n == 0 || dim <= 0 || k <= 0 {
		return nil, fmt.Errorf("%d rows of %d values in %d partitions: %w", n, dim, k, ErrInvalid)
	}
	k = min(k, n)
	rng := rand.New(rand.NewPCG(seed, 0x9a7))
	data, err := sample(ctx, src, rng.Perm(n)[:min(n, samplePerCentroid*k)])
	if err != nil {
		return nil, err
	}
	m := len(data) / dim
	top, err := Train(ctx, data, dim, max(1, int(math.Sqrt(float64(k)))), TrainOptions{Iterations: trainRounds, Seed: seed})
	if err != nil {
		return nil, err
	}
	groups, err := top.Assign(ctx, data)
	if err != nil {
		return nil, err
	}
	members := make([][]int, top.K())
	for j, g := range groups {
		members[g] = append(members[g], j)
	}
	leaves := make([][]float32, top.K()) // each top centroid's leaf centroids
	var rows []float32                   // one group's sample rows at a time
	for g, of := range members {
		if len(of) == 0 {
			continue
		}
		rows = rows[:0]
		for _, j := range of {
			rows = append(rows, data[j*dim:(j+1)*dim]...)
		}
		share := max(1, (k*len(of)+m/2)/m)
		leaf, err := Train(ctx, rows, dim, share, TrainOptions{Iterations: trainRounds, Seed: seed + uint64(g) + 1})
		if err != nil {
			return nil, err
		}
		leaves[g] = leaf.Data
	}
	p := assemble(top, leaves)
	assign, err := p.assign(ctx, src, 0, n)
	if err != nil {
		return nil, err
	}
	moved, err := p.splitHubs(ctx, src, assign, leaves, n/p.K(), seed)
	if err != nil {
		return nil, err
	}
	if moved != nil {
		p = assemble(top, leaves)
		if err := p.reassign(ctx, src, assign, moved); err != nil {
			return nil, err
		}
	}
	p.lists = make([][]int32, p.K())
	for i, c := range assign {
		p.lists[c] = append(p.lists[c], int32(i))
	}
	p.n = n
	p.Gap, p.Cap = 2, p.K() // every cosine lies within 2 of another
	p.bitmaps = bitmapPool(n)
	return p, nil
}

// sample reads src's rows at positions (in file order) one after another.
func sample(ctx context.Context, src Source, positions []int) ([]float32, error) {
	slices.Sort(positions)
	dim := src.Dim()
	data := make([]float32, len(positions)*dim)
	for j, i := range positions {
		if err := src.Read(ctx, data[j*dim:(j+1)*dim], i); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// assemble returns the partitions whose centroids are leaves, top
// centroid by top centroid, under top.
func assemble(top Centroids, leaves [][]float32) *Partitions {
	p := &Partitions{top: top, C: Centroids{Dim: top.Dim}}
	for _, l := range leaves {
		p.leaves = append(p.leaves, p.C.K())
		p.C.Data = append(p.C.Data, l...)
	}
	p.leaves = append(p.leaves, p.C.K())
	return p
}

// splitHubs replaces in leaves every partition of p holding more than
// twice share of the rows (assign: each row's partition) by centroids
// trained on its own rows, one for every share of them. It returns where
// each of p's partitions went in the partitions leaves now make (its new
// number, or for a split one the range of the new ones its rows are to be
// shared among), or nil when it split none.
func (p *Partitions) splitHubs(ctx context.Context, src Source, assign []int32, leaves [][]float32, share int, seed uint64) ([]moved, error) {
	share = max(share, 1)
	rows := make([][]int, p.K())
	for i, c := range assign {
		rows[c] = append(rows[c], i)
	}
	dim := p.C.Dim
	split := false
	to := make([]moved, p.K())
	next := int32(0)
	for g := range leaves {
		var kept []float32
		for c := p.leaves[g]; c < p.leaves[g+1]; c++ {
			if len(rows[c]) <= 2*share {
				kept = append(kept, p.C.Row(c)...)
				to[c] = moved{next, next + 1}
				next++
				continue
			}
			parts := (len(rows[c]) + share - 1) / share
			rng := rand.New(rand.NewPCG(seed, uint64(c)))
			pick := rows[c]
			if len(pick) > samplePerCentroid*parts {
				rng.Shuffle(len(pick), func(i, j int) { pick[i], pick[j] = pick[j], pick[i] })
				pick = pick[:samplePerCentroid*parts]
			}
			data, err := sample(ctx, src, pick)
			if err != nil {
				return nil, err
			}
			sub, err := Train(ctx, data, dim, parts, TrainOptions{Iterations: trainRounds, Seed: seed + uint64(c)})
			if err != nil {
				return nil, err
			}
			kept = append(kept, sub.Data...)
			to[c] = moved{next, next + int32(sub.K())}
			next += int32(sub.K())
			split = true
		}
		leaves[g] = kept
	}
	if !split {
		return nil, nil
	}
	return to, nil
}

// moved is where splitHubs sent a partition: the new partitions lo..hi-1.
type moved struct{ lo, hi int32 }

// reassign moves each row of src to its partition's place in p (to, from
// splitHubs): the one it went to, or the most similar of those a split
// one became.
func (p *Partitions) reassign(ctx context.Context, src Source, assign []int32, to []moved) error {
	dim := p.C.Dim
	err := src.Each(ctx, 0, len(assign), func(first int, vals []float32) {
		var dots []float32
		for r := 0; r*dim < len(vals); r++ {
			i := first + r
			m := to[assign[i]]
			if m.hi-m.lo == 1 {
				assign[i] = m.lo
				continue
			}
			dots = slices.Grow(dots[:0], int(m.hi-m.lo))[:m.hi-m.lo]
			vecmath.DotMany(vals[r*dim:(r+1)*dim], p.C.Data[int(m.lo)*dim:int(m.hi)*dim], dots)
			assign[i] = m.lo + int32(argmax(dots))
		}
	})
	if err != nil {
		return err
	}
	return ctx.Err()
}

// assign returns the partition of each of src's rows lo..hi-1: the most
// similar leaf centroid under the row's two most similar top centroids.
func (p *Partitions) assign(ctx context.Context, src Source, lo, hi int) ([]int32, error) {
	out := make([]int32, hi-lo)
	dim := p.C.Dim
	err := src.Each(ctx, lo, hi, func(first int, vals []float32) {
		tops := make([]float32, p.top.K())
		dots := make([]float32, p.K())
		for r := 0; r*dim < len(vals); r++ {
			out[first+r-lo] = p.nearest(vals[r*dim:(r+1)*dim], tops, dots)
		}
	})
	if err != nil {
		return nil, err
	}
	return out, ctx.Err()
}

// nearest is v's partition (see assign), with tops and dots room for the
// top and leaf centroids' scores.
func (p *Partitions) nearest(v []float32, tops, dots []float32) int32 {
	vecmath.DotMany(v, p.top.Data, tops)
	a := argmax(tops)
	b := -1
	for i, x := range tops {
		if i != a && (b < 0 || x > tops[b]) {
			b = i
		}
	}
	best, score := int32(-1), float32(0)
	for _, t := range []int{a, b} {
		if t < 0 {
			continue
		}
		lo, hi := p.leaves[t], p.leaves[t+1]
		if lo == hi {
			continue
		}
		d := dots[lo:hi]
		vecmath.DotMany(v, p.C.Data[lo*p.C.Dim:hi*p.C.Dim], d)
		if j := argmax(d); best < 0 || d[j] > score {
			best, score = int32(lo+j), d[j]
		}
	}
	if best < 0 { // neither top centroid has leaves: any leaf will do
		vecmath.DotMany(v, p.C.Data, dots)
		best = int32(argmax(dots))
	}
	return best
}

// Choose returns q's cosine with its nearest centroid and the partitions
// whose centroids lie within Gap of it, nearest first, Cap of them at
// most (none for a q of length 0).
func (p *Partitions) Choose(q []float32) (best float32, parts []int32) {
	scores, best := p.cosines(q)
	for c, sc := range scores {
		if sc >= best-p.Gap {
			parts = append(parts, int32(c))
		}
	}
	slices.SortFunc(parts, func(a, b int32) int { return cmp.Compare(scores[b], scores[a]) })
	return best, parts[:min(len(parts), max(p.Cap, 1))]
}

// RowsOf appends to out, ascending, the rows of parts, and returns it.
func (p *Partitions) RowsOf(parts []int32, out []int32) []int32 {
	size := 0
	for _, c := range parts {
		size += len(p.lists[c])
	}
	out = slices.Grow(out[:0], size)
	pooled := p.bitmaps.Get().(*[]uint64)
	bm := *pooled
	lo, hi := len(bm), -1
	for _, c := range parts {
		for _, r := range p.lists[c] {
			w := int(r >> 6)
			bm[w] |= 1 << (r & 63)
			lo, hi = min(lo, w), max(hi, w)
		}
	}
	for w := lo; w <= hi; w++ {
		for b := bm[w]; b != 0; b &= b - 1 {
			out = append(out, int32(w<<6+bits.TrailingZeros64(b)))
		}
		bm[w] = 0
	}
	p.bitmaps.Put(pooled)
	return out
}

// bitmapPool is a pool of clear bitmaps of n bits.
func bitmapPool(n int) *sync.Pool {
	words := (n + 63) / 64
	return &sync.Pool{New: func() any {
		bm := make([]uint64, words)
		return &bm
	}}
}

// All returns every partition, in order.
func (p *Partitions) All() []int32 {
	all := make([]int32, p.K())
	for i := range all {
		all[i] = int32(i)
	}
	return all
}

// Lists returns each partition's rows, ascending: shared, never to be
// changed.
func (p *Partitions) Lists() [][]int32 { return p.lists }

// cosines returns q's cosine with every centroid, and the largest; nil
// for a q of length 0.
func (p *Partitions) cosines(q []float32) ([]float32, float32) {
	l := vecmath.Length(q)
	if l == 0 || p.K() == 0 {
		return nil, 0
	}
	scores := make([]float32, p.K())
	vecmath.DotMany(q, p.C.Data, scores)
	inv := float32(1 / l)
	best := float32(math.Inf(-1))
	for i := range scores {
		scores[i] *= inv
		best = max(best, scores[i])
	}
	return scores, best
}

// Truth returns the best k rows for q by the scan a query makes without
// partitions.
type Truth func(ctx context.Context, q []float32, k int) ([]int32, error)

// calibrationQueries is how many of its rows Calibrate asks as queries.
const calibrationQueries = 200

// Calibrate sets Gap and Cap to the least that find, on average, target
// of the top k that truth finds among every row, for queries that are rows
// of src drawn by seed (each left out of its own answers, as a query not in
// the index would be), with Probes, Read and Recall as measured there;
// Floor to about the lowest cosine those queries had with their nearest
// centroid, less a margin; Pays to whether they read less than half of the
// rows. Cap is the fewest partitions that keeps the mean probed within
// capSlack of what Gap alone would probe: the queries among many near
// partitions, which would read most of the codes, probe that many at most,
// and a wider Gap finds what they miss elsewhere.
func (p *Partitions) Calibrate(ctx context.Context, src Source, k int, target float64, seed uint64, truth Truth) error {
	asked, found, err := p.calibrationQueries(ctx, src, k, seed, truth)
	if err != nil {
		return err
	}
	p.Gap, p.Cap, p.Probes, p.Read, p.Recall, p.Pays, p.Target = 2, p.K(), float64(p.K()), 1, 1, false, target
	if len(found) == 0 {
		return nil
	}
	// Aimed halfway between target and 1: the calibration's queries are a
	// sample, and queries not in the index fall a little short of rows.
	aim := target + (1-target)/2
	need := min(len(found)-1, int(math.Ceil(aim*float64(len(found))))-1)
	uncapped, _ := gapFor(found, p.K(), need)
	_, free := p.probed(asked, uncapped, p.K())
	cap := p.K()
	for lo, hi := 1, p.K(); lo <= hi; { // the least cap within capSlack of free
		mid := (lo + hi) / 2
		g, ok := gapFor(found, mid, need)
		if _, rows := p.probed(asked, g, mid); ok && rows <= capSlack*free {
			cap, hi = mid, mid-1
		} else {
			lo = mid + 1
		}
	}
	p.Cap = cap
	p.Gap, _ = gapFor(found, cap, need)
	hits := 0
	for _, a := range found {
		if a.gap <= p.Gap && a.rank < cap {
			hits++
		}
	}
	p.Recall = float64(hits) / float64(len(found))
	var rows float64
	p.Probes, rows = p.probed(asked, p.Gap, cap)
	p.Read = rows / float64(src.Rows())
	p.Pays = p.Read < 0.5
	bests := make([]float32, len(asked))
	for j, q := range asked {
		bests[j] = q.best
	}
	slices.Sort(bests)
	p.Floor = bests[len(bests)/100] - floorMargin
	return nil
}

// capSlack is how many more rows, on average, a query may read for a Cap
// that bounds the partitions any query probes.
const capSlack = 1.25

// calibrationQuery is one of Calibrate's queries: its cosine with every
// centroid, the centroids nearest first, and the best cosine.
type calibrationQuery struct {
	scores []float32
	order  []int32
	best   float32
}

// trueAnswer is where one of a calibration query's true answers lies: how
// far behind the query's best its partition's cosine is, and that
// partition's place in the query's order (0: the nearest).
type trueAnswer struct {
	gap  float32
	rank int
}

// calibrationQueries asks truth the top k of rows of src drawn by seed,
// and returns the queries and where each of their true answers lies.
func (p *Partitions) calibrationQueries(ctx context.Context, src Source, k int, seed uint64, truth Truth) ([]calibrationQuery, []trueAnswer, error) {
	n, dim := src.Rows(), src.Dim()
	part := make([]int32, n) // -1: a row after the partitions', which every query reads
	for i := range part {
		part[i] = -1
	}
	for c, l := range p.lists {
		for _, r := range l {
			part[r] = int32(c)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0xca1))
	var asked []calibrationQuery
	var found []trueAnswer
	q := make([]float32, dim)
	for _, i := range rng.Perm(n)[:min(calibrationQueries, n)] {
		if err := src.Read(ctx, q, i); err != nil {
			return nil, nil, err
		}
		scores, best := p.cosines(q)
		if scores == nil {
			continue
		}
		top, err := truth(ctx, q, k+1)
		if err != nil {
			return nil, nil, err
		}
		cq := calibrationQuery{scores: scores, order: make([]int32, len(scores)), best: best}
		for c := range cq.order {
			cq.order[c] = int32(c)
		}
		slices.SortFunc(cq.order, func(a, b int32) int { return cmp.Compare(scores[b], scores[a]) })
		rank := make([]int, len(scores))
		for r, c := range cq.order {
			rank[c] = r
		}
		kept := 0
		for _, t := range top {
			if int(t) == i || kept == k || int(t) >= n {
				continue
			}
			a := trueAnswer{} // a row every query reads is found at any gap
			if c := part[t]; c >= 0 {
				a = trueAnswer{gap: best - scores[c], rank: rank[c]}
			}
			found = append(found, a)
			kept++
		}
		asked = append(asked, cq)
	}
	return asked, found, nil
}

// gapFor returns the least gap at which, with at most cap partitions a
// query, more than need of the answers are found; ok is false when cap
// leaves need or fewer of them within reach.
func gapFor(found []trueAnswer, cap, need int) (gap float32, ok bool) {
	var gaps []float32
	for _, a := range found {
		if a.rank < cap {
			gaps = append(gaps, a.gap)
		}
	}
	if len(gaps) <= need {
		return 2, false
	}
	slices.Sort(gaps)
	return gaps[max(need, 0)], true
}

// probed returns the mean number of partitions asked probe at gap, cap of
// them at most, and the mean number of rows those hold.
func (p *Partitions) probed(asked []calibrationQuery, gap float32, cap int) (probes, rows float64) {
	n, r := 0, 0
	for _, q := range asked {
		for i := 0; i < min(cap, len(q.order)) && q.scores[q.order[i]] >= q.best-gap; i++ {
			n++
			r += len(p.lists[q.order[i]])
		}
	}
	return float64(n) / float64(len(asked)), float64(r) / float64(len(asked))
}

// floorMargin is how far below the calibration queries' lowest cosines
// with their nearest centroid a query may lie and still be answered from
// the partitions.
const floorMargin = 0.05

// Rekey returns p over the rows of another state of the same rows: move
// gives the position there of each of p's rows (-1 for a row that is
// gone), keeping their order. ok is false when the rows it keeps are not
// every row below the last of them: the partitions no longer describe a
// prefix of the rows.
func (p *Partitions) Rekey(move func(row int32) int32) (q *Partitions, ok bool) {
	q = &Partitions{C: p.C, top: p.top, leaves: p.leaves, Gap: p.Gap, Cap: p.Cap, Probes: p.Probes, Read: p.Read,
		Recall: p.Recall, Target: p.Target, Floor: p.Floor, Pays: p.Pays, lists: make([][]int32, len(p.lists))}
	kept, last := 0, int32(-1)
	for c, l := range p.lists {
		nl := make([]int32, 0, len(l))
		for _, r := range l {
			if at := move(r); at >= 0 {
				if len(nl) > 0 && at <= nl[len(nl)-1] {
					return nil, false
				}
				nl = append(nl, at)
				last = max(last, at)
			}
		}
		q.lists[c] = nl
		kept += len(nl)
	}
	q.n = int(last) + 1
	if kept != q.n {
		return nil, false
	}
	q.bitmaps = bitmapPool(q.n)
	return q, true
}

// RowKey names a row in a file of partitions: its serial (a number that
// names the row, and only it, as long as it lives) and a hash of its id.
type RowKey struct{ Serial, IDHash uint32 }

// RowCheck is a hash of the vector of the row at Key in the keys of a
// file of partitions: a few of them tell a file of other vectors under the
// same ids and serials from the folder's own.
type RowCheck struct{ Key, Hash uint32 }

// fileMagic starts a file of partitions, then its format's version: 3
// stores Cap after Floor; a file of version 2, without it, is read with Cap
// K and Target 0, so that it is calibrated again.
const (
	fileMagic   = "FOLIOIVF\x03"
	fileMagicV2 = "FOLIOIVF\x02"
)

// Encode writes p to w: the centroids, the calibration, and each row's
// partition under keys[row] (keys in increasing Serial order), with a
// CRC-32C of it all at the end. below is stored with them: the serial
// every row partitioned lies below.
func (p *Partitions) Encode(w io.Writer, keys []RowKey, below uint32, checks []RowCheck) error {
	if len(keys) != p.n {
		return fmt.Errorf("%d row keys for %d rows: %w", len(keys), p.n, ErrInvalid)
	}
	part := make([]uint32, p.n)
	for c, l := range p.lists {
		for _, r := range l {
			part[r] = uint32(c)
		}
	}
	var b []byte
	b = append(b, fileMagic...)
	for _, v := range []uint32{uint32(p.C.Dim), uint32(p.top.K()), uint32(p.K()), uint32(p.n), below, uint32(len(checks)), math.Float32bits(p.Gap), math.Float32bits(p.Floor), uint32(p.Cap)} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	for _, v := range []float64{p.Probes, p.Read, p.Recall, p.Target} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	pays := byte(0)
	if p.Pays {
		pays = 1
	}
	b = append(b, pays)
	b = appendFloats(b, p.top.Data)
	for _, v := range p.leaves {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	b = appendFloats(b, p.C.Data)
	for i, k := range keys {
		b = binary.LittleEndian.AppendUint32(b, k.Serial)
		b = binary.LittleEndian.AppendUint32(b, k.IDHash)
		b = binary.LittleEndian.AppendUint32(b, part[i])
	}
	for _, c := range checks {
		b = binary.LittleEndian.AppendUint32(b, c.Key)
		b = binary.LittleEndian.AppendUint32(b, c.Hash)
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	_, err := w.Write(b)
	return err
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func appendFloats(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// ErrCorrupt is the error of a file Decode cannot read.
var ErrCorrupt = errors.New("ivf: corrupt partitions file")

// Decode reads what Encode wrote: the partitions, over rows numbered by
// their place in keys, the keys (in increasing Serial order), below and
// the checks. A file cut short, altered or inconsistent is ErrCorrupt.
func Decode(data []byte) (p *Partitions, keys []RowKey, below uint32, checks []RowCheck, err error) {
	r := reader{b: data}
	if len(data) < len(fileMagic)+4 || crc32.Checksum(data[:len(data)-4], castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, nil, 0, nil, ErrCorrupt
	}
	v2 := string(data[:len(fileMagic)]) == fileMagicV2
	if !v2 && string(data[:len(fileMagic)]) != fileMagic {
		return nil, nil, 0, nil, ErrCorrupt
	}
	r.b = data[len(fileMagic) : len(data)-4]
	dim, tops, leaves, n := int(r.u32()), int(r.u32()), int(r.u32()), int(r.u32())
	below = r.u32()
	nchecks := int(r.u32())
	p = &Partitions{Gap: math.Float32frombits(r.u32()), Floor: math.Float32frombits(r.u32()), Cap: leaves}
	if !v2 {
		p.Cap = int(r.u32())
	}
	p.Probes, p.Read, p.Recall, p.Target = math.Float64frombits(r.u64()), math.Float64frombits(r.u64()), math.Float64frombits(r.u64()), math.Float64frombits(r.u64())
	if v2 {
		p.Target = 0 // calibrated again, Cap with Gap
	}
	pays := r.byte()
	p.Pays = pays == 1
	if pays > 1 || dim <= 0 || dim > 1<<16 || tops <= 0 || leaves <= 0 || leaves > 1<<22 || tops > leaves || n > math.MaxInt32 || p.Cap < 1 || p.Cap > leaves ||
		nchecks > n || r.err || len(r.b) != 4*(tops*dim+tops+1+leaves*dim+3*n+2*nchecks) {
		return nil, nil, 0, nil, ErrCorrupt
	}
	p.top = Centroids{Dim: dim, Data: r.floats(tops * dim)}
	p.leaves = make([]int, tops+1)
	for i := range p.leaves {
		p.leaves[i] = int(r.u32())
		if p.leaves[i] > leaves || i > 0 && p.leaves[i] < p.leaves[i-1] || i == 0 && p.leaves[i] != 0 {
			return nil, nil, 0, nil, ErrCorrupt
		}
	}
	if p.leaves[tops] != leaves {
		return nil, nil, 0, nil, ErrCorrupt
	}
	p.C = Centroids{Dim: dim, Data: r.floats(leaves * dim)}
	keys = make([]RowKey, n)
	p.lists = make([][]int32, leaves)
	for i := range keys {
		keys[i] = RowKey{Serial: r.u32(), IDHash: r.u32()}
		c := r.u32()
		if c >= uint32(leaves) || keys[i].Serial >= below || i > 0 && keys[i].Serial <= keys[i-1].Serial {
			return nil, nil, 0, nil, ErrCorrupt
		}
		p.lists[c] = append(p.lists[c], int32(i))
	}
	checks = make([]RowCheck, nchecks)
	for i := range checks {
		checks[i] = RowCheck{Key: r.u32(), Hash: r.u32()}
		if checks[i].Key >= uint32(n) {
			return nil, nil, 0, nil, ErrCorrupt
		}
	}
	p.n = n
	p.bitmaps = bitmapPool(n)
	return p, keys, below, checks, nil
}

// reader reads little-endian values from b, noting a read past its end.
type reader struct {
	b   []byte
	err bool
}

func (r *reader) take(n int) []byte {
	if len(r.b) < n {
		r.err = true
		return make([]byte, n)
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *reader) byte() byte  { return r.take(1)[0] }
func (r *reader) floats(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(r.u32())
	}
	return out
}
