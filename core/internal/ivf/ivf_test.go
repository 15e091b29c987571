package ivf

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/foliovec/folio/core/internal/vecmath"
)

// planted returns n vectors of dim values around each of k random unit
// centres (Gaussian noise of spread sigma per dimension, lengths varied),
// and the centre each came from.
func planted(k, n, dim int, sigma float64, seed uint64) ([]float32, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	centres := make([]float32, k*dim)
	for i := range centres {
		centres[i] = float32(rng.NormFloat64())
	}
	normalize(centres, dim)
	data := make([]float32, 0, k*n*dim)
	var from []int
	for c := range k {
		for range n {
			scale := 0.5 + rng.Float64()
			for t := range dim {
				data = append(data, float32(scale*(float64(centres[c*dim+t])+sigma*rng.NormFloat64())))
			}
			from = append(from, c)
		}
	}
	return data, from
}

// TestTrainFindsPlantedClusters: well-separated clusters each end in one
// partition of their own.
func TestTrainFindsPlantedClusters(t *testing.T) {
	const k, n, dim = 12, 150, 32
	data, from := planted(k, n, dim, 0.05, 1)
	c, err := Train(t.Context(), data, dim, k, TrainOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if c.K() != k {
		t.Fatalf("K = %d, want %d", c.K(), k)
	}
	for i := range k {
		if l := vecmath.Length(c.Row(i)); math.Abs(l-1) > 1e-5 {
			t.Errorf("centroid %d has length %v, want 1", i, l)
		}
	}
	assign, err := c.Assign(t.Context(), data)
	if err != nil {
		t.Fatal(err)
	}
	partOf := map[int]int32{} // planted cluster -> partition
	owner := map[int32]int{}  // partition -> planted cluster
	for i, p := range assign {
		want, seen := partOf[from[i]]
		if !seen {
			partOf[from[i]] = p
			want = p
		}
		if p != want {
			t.Fatalf("vector %d of cluster %d is in partition %d, its cluster's others in %d", i, from[i], p, want)
		}
		if o, ok := owner[p]; ok && o != from[i] {
			t.Fatalf("partition %d holds clusters %d and %d", p, o, from[i])
		}
		owner[p] = from[i]
	}
}

// TestTrainIsDeterministic: the same data, k and seed give the same
// centroids; another seed may not.
func TestTrainIsDeterministic(t *testing.T) {
	data, _ := planted(6, 80, 16, 0.3, 2)
	a, err := Train(t.Context(), data, 16, 6, TrainOptions{Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(t.Context(), data, 16, 6, TrainOptions{Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Data, b.Data) {
		t.Error("two trainings with one seed differ")
	}
}

// TestTrainFillsEveryPartition: with many duplicates and more centroids
// than clusters, no centroid is left empty or invalid, and k above the
// number of vectors gives one centroid a vector.
func TestTrainFillsEveryPartition(t *testing.T) {
	const dim = 8
	var data []float32
	for i := range 200 {
		v := make([]float32, dim)
		v[i%2] = 1 // two distinct directions only...
		v[2+i%5] = float32(i%7) / 100
		data = append(data, v...)
	}
	c, err := Train(t.Context(), data, dim, 10, TrainOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.K() {
		for _, x := range c.Row(i) {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("centroid %d = %v", i, c.Row(i))
			}
		}
	}
	assign, err := c.Assign(t.Context(), data)
	if err != nil {
		t.Fatal(err)
	}
	used := map[int32]bool{}
	for _, p := range assign {
		used[p] = true
	}
	if len(used) < 4 {
		t.Errorf("%d of 10 partitions hold vectors, want the large ones split", len(used))
	}

	few, err := Train(t.Context(), data[:3*dim], dim, 10, TrainOptions{})
	if err != nil || few.K() != 3 {
		t.Errorf("Train of 3 vectors for 10 centroids = %d centroids, %v; want 3", few.K(), err)
	}
}

// TestOrderRanksCentroidsBySimilarity: Order starts with Assign's
// partition and never ranks a less similar centroid above a more similar
// one.
func TestOrderRanksCentroidsBySimilarity(t *testing.T) {
	data, _ := planted(8, 50, 24, 0.2, 4)
	c, err := Train(t.Context(), data, 24, 8, TrainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	assign, err := c.Assign(t.Context(), data)
	if err != nil {
		t.Fatal(err)
	}
	var scores []float32
	for i := range 50 {
		q := data[i*24 : (i+1)*24]
		var order []int32
		order, scores = c.Order(q, scores)
		if order[0] != assign[i] {
			t.Fatalf("vector %d: Order starts with %d, Assign says %d", i, order[0], assign[i])
		}
		for j := 1; j < len(order); j++ {
			if scores[order[j]] > scores[order[j-1]] {
				t.Fatalf("vector %d: centroid %d (%v) ranked below %d (%v)", i, order[j], scores[order[j]], order[j-1], scores[order[j-1]])
			}
		}
	}
}

// TestProbingMorePartitionsNeverLosesRecall: the exact top 10 found among
// the partitions of the nearest p centroids grows with p and is whole
// when every partition is probed.
func TestProbingMorePartitionsNeverLosesRecall(t *testing.T) {
	const dim, k = 16, 16
	data, _ := planted(k, 60, dim, 0.4, 5)
	c, err := Train(t.Context(), data, dim, k, TrainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	assign, err := c.Assign(t.Context(), data)
	if err != nil {
		t.Fatal(err)
	}
	n := len(assign)
	queries, _ := planted(k, 2, dim, 0.4, 6)
	prev := -1.0
	for _, p := range []int{1, 2, 4, 8, k} {
		found, total := 0, 0
		for qi := 0; qi < len(queries)/dim; qi++ {
			q := queries[qi*dim : (qi+1)*dim]
			dots := make([]float32, n)
			vecmath.DotMany(q, data, dots)
			top := make([]int, n)
			for i := range top {
				top[i] = i
			}
			slices.SortFunc(top, func(a, b int) int { return cmpDesc(dots[a], dots[b]) })
			order, _ := c.Order(q, nil)
			probed := map[int32]bool{}
			for _, o := range order[:p] {
				probed[o] = true
			}
			for _, i := range top[:10] {
				total++
				if probed[assign[i]] {
					found++
				}
			}
		}
		recall := float64(found) / float64(total)
		if recall < prev {
			t.Errorf("recall@10 with %d partitions probed is %v, below %v with fewer", p, recall, prev)
		}
		prev = recall
		if p == k && recall != 1 {
			t.Errorf("recall@10 probing every partition is %v, want 1", recall)
		}
	}
}

func cmpDesc(a, b float32) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// TestBadArgumentsAndCancellation: rows that do not fit dim, k ≤ 0 and an
// ended context are errors; nothing panics.
func TestBadArgumentsAndCancellation(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		data []float32
		dim  int
		k    int
	}{{make([]float32, 10), 3, 2}, {make([]float32, 9), 0, 2}, {make([]float32, 9), 3, 0}} {
		if _, err := Train(ctx, tc.data, tc.dim, tc.k, TrainOptions{}); !errors.Is(err, ErrInvalid) {
			t.Errorf("Train(%d values, dim %d, k %d) = %v, want ErrInvalid", len(tc.data), tc.dim, tc.k, err)
		}
	}
	if _, err := (Centroids{Dim: 3}).Assign(ctx, make([]float32, 9)); !errors.Is(err, ErrInvalid) {
		t.Errorf("Assign with no centroids = %v, want ErrInvalid", err)
	}
	data, _ := planted(4, 100, 8, 0.3, 8)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Train(cancelled, data, 8, 4, TrainOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Train on an ended context = %v, want context.Canceled", err)
	}
	if c, err := Train(ctx, nil, 8, 4, TrainOptions{}); err != nil || c.K() != 0 {
		t.Errorf("Train of no vectors = %d centroids, %v; want none, nil", c.K(), err)
	}
}

// BenchmarkTrain64kx384 trains 256 centroids on 64k clustered 384-value
// vectors, the sample a partitioned index of about a million rows would
// train on.
func BenchmarkTrain64kx384(b *testing.B) {
	data, _ := planted(512, 125, 384, 0.05, 1)
	for b.Loop() {
		if _, err := Train(b.Context(), data, 384, 256, TrainOptions{Iterations: 10}); err != nil {
			b.Fatal(err)
		}
	}
}
