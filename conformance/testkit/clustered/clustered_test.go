package clustered

import (
	"math"
	"slices"
	"testing"
)

func cos(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// The set is a function of its seed and each vector of its index; vectors
// are unit length; queries are not stored vectors; and the geometry is an
// embedding's: a query's nearest stored vector is much closer than a
// typical one, and typical ones are not orthogonal.
func TestSetBehavesLikeEmbeddings(t *testing.T) {
	const dim, n = 64, 4000
	a, b := New(dim, 50, 0, 7), New(dim, 50, 0, 7)
	va, vb := make([]float32, dim), make([]float32, dim)
	for _, i := range []int{0, 1, 999, n - 1} {
		a.Vector(i, va)
		b.Vector(i, vb)
		if !slices.Equal(va, vb) {
			t.Fatalf("vector %d differs between two sets of one seed", i)
		}
		if l := cos(va, va); math.Abs(l-1) > 1e-6 || math.Abs(float64(dotSelf(va))-1) > 1e-5 {
			t.Fatalf("vector %d has length² %v", i, dotSelf(va))
		}
	}
	other := New(dim, 50, 0, 8)
	other.Vector(0, vb)
	a.Vector(0, va)
	if slices.Equal(va, vb) {
		t.Fatal("two seeds gave the same vector")
	}
	stored := make([][]float32, n)
	for i := range stored {
		stored[i] = make([]float32, dim)
		a.Vector(i, stored[i])
	}
	q := make([]float32, dim)
	var nearest, typical float64
	for j := range 20 {
		a.Query(j, q)
		best, sum := -1.0, 0.0
		for _, v := range stored {
			c := cos(q, v)
			if c > 0.999999 {
				t.Fatalf("query %d is a stored vector", j)
			}
			best = max(best, c)
			sum += c
		}
		nearest += best / 20
		typical += sum / n / 20
	}
	t.Logf("mean cosine to the nearest stored vector %.3f, to a typical one %.3f", nearest, typical)
	if nearest < 0.6 || typical < 0.05 || typical > 0.5 || nearest-typical < 0.3 {
		t.Fatalf("nearest %.3f, typical %.3f: not an embedding-like geometry", nearest, typical)
	}
}

func dotSelf(v []float32) float32 {
	var s float32
	for _, x := range v {
		s += x * x
	}
	return s
}
