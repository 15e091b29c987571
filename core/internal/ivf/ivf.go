// Package ivf groups vectors into partitions by their nearest centroid, as
// an inverted-file index does: spherical k-means trains the centroids on a
// sample of the vectors, every vector is then assigned to the centroid it
// is most similar to by cosine, and a query visits the partitions of the
// centroids most similar to it first (Order).
//
// Centroids are unit vectors, so a vector's nearest centroid by cosine is
// the one with the largest dot product, whatever the vector's length: the
// vectors need not be normalised.
//
// It is the first part of partitioned search on the segmented layout; the
// engine does not use it yet.
package ivf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/foliovec/folio/core/internal/vecmath"
)

// Centroids are K unit vectors of Dim values each, row after row in Data.
type Centroids struct {
	Dim  int
	Data []float32
}

// K is the number of centroids.
func (c Centroids) K() int {
	if c.Dim == 0 {
		return 0
	}
	return len(c.Data) / c.Dim
}

// Row is centroid i.
func (c Centroids) Row(i int) []float32 { return c.Data[i*c.Dim : (i+1)*c.Dim : (i+1)*c.Dim] }

// TrainOptions tune Train.
type TrainOptions struct {
	// Iterations is the most rounds of assignment and update; 0 means
	// DefaultIterations. Training stops earlier once a round moves fewer
	// than one vector in a thousand to another centroid.
	Iterations int
	// Seed drives the random choice of the first centroids and of the
	// splits of large partitions into empty ones: the same data, k and
	// Seed give the same centroids.
	Seed uint64
}

// DefaultIterations is Train's most rounds when TrainOptions.Iterations is 0.
const DefaultIterations = 20

// ErrInvalid is the error of arguments Train or Assign cannot use.
var ErrInvalid = errors.New("ivf: invalid argument")

// minRowsPerWorker is the fewest vectors a goroutine of Assign scores.
const minRowsPerWorker = 256

// Train returns min(k, n) centroids of the n vectors of data (n rows of dim
// values) by spherical k-means: k vectors chosen by greedy k-means++ (each
// the best of a few drawn with a chance that grows with their squared
// distance from the centroids chosen before, so that the first centroids
// spread over the clusters),
// then rounds that assign every vector to its most similar centroid and move
// each centroid to the normalised mean of its vectors. A centroid left
// with no vector takes half of the largest partition (its centroid split
// in two by a small random step). Vectors of length 0 count for nothing.
// It stops early when ctx ends, with ctx's error.
func Train(ctx context.Context, data []float32, dim, k int, opts TrainOptions) (Centroids, error) {
	n, err := rows(data, dim)
	if err != nil {
		return Centroids{}, err
	}
	if k <= 0 {
		return Centroids{}, fmt.Errorf("%d centroids: %w", k, ErrInvalid)
	}
	k = min(k, n)
	if k == 0 {
		return Centroids{Dim: dim}, nil
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x1f0))
	c, err := firstCentroids(ctx, candidateRows(data, dim, k, rng), dim, k, rng)
	if err != nil {
		return Centroids{}, err
	}
	rounds := opts.Iterations
	if rounds <= 0 {
		rounds = DefaultIterations
	}
	assign := make([]int32, n)
	for i := range assign {
		assign[i] = -1
	}
	sums := make([]float64, k*dim)
	counts := make([]int, k)
	for range rounds {
		moved, err := c.assignInto(ctx, data, assign)
		if err != nil {
			return Centroids{}, err
		}
		c.update(data, assign, sums, counts)
		c.fillEmpty(counts, rng)
		if moved*1000 < n {
			break
		}
	}
	return c, nil
}

// candidatesPerCentroid is how many rows per centroid the first centroids
// are chosen from: choosing costs a few passes over those rows per centroid, and more
// rows than this choose about as well.
const candidatesPerCentroid = 64

// candidateRows returns the rows of data that firstCentroids chooses from: all of them,
// or candidatesPerCentroid·k drawn at random.
func candidateRows(data []float32, dim, k int, rng *rand.Rand) []float32 {
	n := len(data) / dim
	if n <= candidatesPerCentroid*k {
		return data
	}
	out := make([]float32, 0, candidatesPerCentroid*k*dim)
	for _, i := range rng.Perm(n)[:candidatesPerCentroid*k] {
		out = append(out, data[i*dim:(i+1)*dim]...)
	}
	return out
}

// firstCentroids chooses k first centroids among the n rows of data by greedy
// k-means++ on the cosine distance of the rows: each step draws a few
// candidates, each with a chance proportional to its squared distance from
// the centroids chosen so far, and keeps the one that brings the rows
// closest to them in all.
func firstCentroids(ctx context.Context, data []float32, dim, k int, rng *rand.Rand) (Centroids, error) {
	n := len(data) / dim
	c := Centroids{Dim: dim, Data: make([]float32, 0, k*dim)}
	// far[i] is row i's squared distance to the nearest centroid so far, as
	// unit vectors (2 − 2·cos); rows of length 0 (inv 0) are never drawn.
	far, inv := make([]float64, n), make([]float64, n)
	for i := range n {
		if l := vecmath.Length(data[i*dim : (i+1)*dim]); l > 0 {
			inv[i] = 1 / l
		}
		far[i] = math.Inf(1)
	}
	add := func(i int) {
		c.Data = append(c.Data, data[i*dim:(i+1)*dim]...)
		normalize(c.Data[len(c.Data)-dim:], dim)
	}
	add(rng.IntN(n))
	distances(data, dim, inv, c.Data, far, far)
	trials := 2 + int(math.Log(float64(k)))
	next, best := make([]float64, n), make([]float64, n)
	row := make([]float32, dim)
	for len(c.Data) < k*dim {
		if err := ctx.Err(); err != nil {
			return Centroids{}, err
		}
		total := potential(far, inv)
		if total == 0 {
			add(rng.IntN(n)) // every row sits on a centroid: any will do
			continue
		}
		pick, least := 0, math.Inf(1)
		for range trials {
			cand := draw(far, inv, rng.Float64()*total)
			copy(row, data[cand*dim:(cand+1)*dim])
			normalize(row, dim)
			distances(data, dim, inv, row, far, next)
			if p := potential(next, inv); p < least {
				least, pick = p, cand
				best, next = next, best
			}
		}
		add(pick)
		far, best = best, far
	}
	return c, nil
}

// distances sets out[i] to the smaller of far[i] and the squared distance
// of row i of data (scaled by inv[i] to unit length) to the unit vector c.
func distances(data []float32, dim int, inv []float64, c []float32, far, out []float64) {
	vecmath.ParallelRanges(len(far), minRowsPerWorker, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cos := float64(vecmath.Dot(data[i*dim:(i+1)*dim], c)) * inv[i]
			out[i] = min(far[i], max(0, 2-2*cos))
		}
	})
}

// potential is the sum of the distances of the rows that count.
func potential(far, inv []float64) float64 {
	var total float64
	for i, f := range far {
		if inv[i] > 0 {
			total += f
		}
	}
	return total
}

// draw returns the row at r along the rows' distances laid end to end.
func draw(far, inv []float64, r float64) int {
	last := 0
	for i, f := range far {
		if inv[i] == 0 {
			continue
		}
		last = i
		if r -= f; r <= 0 {
			return i
		}
	}
	return last
}

// rows checks that data holds whole rows of dim values and returns how
// many.
func rows(data []float32, dim int) (int, error) {
	if dim <= 0 || len(data)%dim != 0 {
		return 0, fmt.Errorf("%d values in rows of %d: %w", len(data), dim, ErrInvalid)
	}
	return len(data) / dim, nil
}

// Assign returns the index of the centroid most similar to each of the
// rows of data (rows of c.Dim values): the partition it belongs to.
func (c Centroids) Assign(ctx context.Context, data []float32) ([]int32, error) {
	n, err := rows(data, c.Dim)
	if err != nil {
		return nil, err
	}
	if c.K() == 0 {
		return nil, fmt.Errorf("no centroids: %w", ErrInvalid)
	}
	out := make([]int32, n)
	if _, err := c.assignInto(ctx, data, out); err != nil {
		return nil, err
	}
	return out, nil
}

// assignInto sets assign[i] to the centroid most similar to row i of data
// and returns how many rows changed centroid.
func (c Centroids) assignInto(ctx context.Context, data []float32, assign []int32) (int, error) {
	var moved atomic.Int64
	vecmath.ParallelRanges(len(assign), minRowsPerWorker, func(lo, hi int) {
		dots := make([]float32, c.K())
		changed := 0
		for i := lo; i < hi; i++ {
			if (i-lo)%1024 == 0 && ctx.Err() != nil {
				return
			}
			vecmath.DotMany(data[i*c.Dim:(i+1)*c.Dim], c.Data, dots)
			best := int32(argmax(dots))
			if assign[i] != best {
				assign[i] = best
				changed++
			}
		}
		moved.Add(int64(changed))
	})
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return int(moved.Load()), nil
}

// update moves every centroid with vectors to the normalised mean of its
// unit-length vectors, and counts them.
func (c Centroids) update(data []float32, assign []int32, sums []float64, counts []int) {
	clear(sums)
	clear(counts)
	d := c.Dim
	for i, j := range assign {
		v := data[i*d : (i+1)*d]
		l := vecmath.Length(v)
		if l == 0 {
			continue
		}
		s := sums[int(j)*d : (int(j)+1)*d]
		for t, x := range v {
			s[t] += float64(x) / l
		}
		counts[j]++
	}
	for j, cnt := range counts {
		if cnt == 0 {
			continue
		}
		s := sums[j*d : (j+1)*d]
		var norm float64
		for _, x := range s {
			norm += x * x
		}
		if norm == 0 {
			continue
		}
		inv := 1 / math.Sqrt(norm)
		row := c.Row(j)
		for t, x := range s {
			row[t] = float32(x * inv)
		}
	}
}

// fillEmpty gives every centroid without vectors half of the largest
// partition: the two become the largest one's centroid stepped a little
// either way along a random direction, and split its vectors at the next
// assignment.
func (c Centroids) fillEmpty(counts []int, rng *rand.Rand) {
	for j, cnt := range counts {
		if cnt > 0 {
			continue
		}
		big := 0
		for i, n := range counts {
			if n > counts[big] {
				big = i
			}
		}
		if counts[big] < 2 {
			return // nothing to split: fewer distinct vectors than centroids
		}
		const step = 1.0 / 1024
		a, b := c.Row(big), c.Row(j)
		for t := range a {
			e := float32(step * rng.NormFloat64())
			a[t], b[t] = a[t]+e, a[t]-e
		}
		normalize(a, c.Dim)
		normalize(b, c.Dim)
		counts[big] /= 2
		counts[j] = counts[big]
	}
}

// Order returns the centroids from the most similar to q to the least,
// with their dot products with q in scores (len K, reused when it has the
// room): the order a query probes their partitions in.
func (c Centroids) Order(q []float32, scores []float32) ([]int32, []float32) {
	k := c.K()
	if cap(scores) < k {
		scores = make([]float32, k)
	}
	scores = scores[:k]
	vecmath.DotMany(q, c.Data, scores)
	order := make([]int32, k)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	return order, scores
}

// argmax is the index of the largest of dots, the first of equals.
func argmax(dots []float32) int {
	best := 0
	for i, x := range dots {
		if x > dots[best] {
			best = i
		}
	}
	return best
}

// normalize scales every row of dim values of data to length 1, leaving
// rows of length 0 as they are.
func normalize(data []float32, dim int) {
	for i := 0; i+dim <= len(data); i += dim {
		row := data[i : i+dim]
		l := vecmath.Length(row)
		if l == 0 {
			continue
		}
		inv := float32(1 / l)
		for t := range row {
			row[t] *= inv
		}
	}
}
