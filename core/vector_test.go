package core

import (
	"math"
	"testing"
)

// Ports src/ItemSelector.spec.ts "normalize", "cosineSimilarity" and
// "normalizedCosineSimilarity", plus Vectra's rules for norms and zero vectors.

func TestNorm(t *testing.T) {
	cases := []struct {
		name string
		v    []float32
		want float64
	}{
		{"typical vector", []float32{3, 4}, 5},
		{"negatives", []float32{-2, -3}, math.Sqrt(13)},
		{"zero vector is 0", []float32{0, 0}, 0},
		{"empty vector is 0", []float32{}, 0},
		{"nil vector is 0", nil, 0},
		{"sums in float64, beyond float32 range", []float32{3e30, 4e30}, math.Sqrt(float64(float32(3e30))*float64(float32(3e30)) + float64(float32(4e30))*float64(float32(4e30)))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Norm(tc.v); got != tc.want {
				t.Fatalf("Norm(%v) = %v, want %v", tc.v, got, tc.want)
			}
		})
	}
}

func TestNormSumsInIndexOrderLikeVectra(t *testing.T) {
	v := []float32{0.1, 0.7, 1e-4, 3.3, 1e3, 0.25}
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if got, want := Norm(v), math.Sqrt(s); got != want {
		t.Fatalf("Norm = %v, want the sequential sum %v", got, want)
	}
}

func TestCosineSimilarity(t *testing.T) {
	cases := []struct {
		name string
		a, b []float32
		want float64 // NaN: want NaN
	}{
		{"identical vectors are 1", []float32{1, 2}, []float32{1, 2}, 1},
		{"orthogonal vectors are 0", []float32{1, 0}, []float32{0, 1}, 0},
		{"opposite vectors are -1", []float32{1, 0}, []float32{-1, 0}, -1},
		{"one zero vector is NaN", []float32{0, 0}, []float32{1, 2}, math.NaN()},
		{"two zero vectors are NaN", []float32{0, 0}, []float32{0, 0}, math.NaN()},
		{"empty vectors are NaN", nil, nil, math.NaN()},
		// Only the overlapping prefix counts, norms included: [1,2]·[4,5] / (|[1,2]| |[4,5]|).
		{"different lengths use the overlapping prefix, norms included", []float32{1, 2, 3}, []float32{4, 5},
			14 / (math.Sqrt(5) * math.Sqrt(41))},
		{"a prefix of zeros is NaN even if the rest is not", []float32{0, 0, 1}, []float32{1, 1}, math.NaN()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := CosineSimilarity(tc.a, tc.b)
			if math.IsNaN(tc.want) {
				if !math.IsNaN(got) {
					t.Fatalf("CosineSimilarity = %v, want NaN", got)
				}
				return
			}
			if math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("CosineSimilarity = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNormalizedCosineSimilarity(t *testing.T) {
	v1, v2 := []float32{1, 2}, []float32{2, 3}
	n1, n2 := Norm(v1), Norm(v2)
	cases := []struct {
		name   string
		a      []float32
		na     float64
		b      []float32
		nb     float64
		want   float64
		wantOK bool // false: want NaN
	}{
		{"correct value with valid norms", v1, n1, v2, n2, 8 / (n1 * n2), true},
		{"NaN if norm1 is 0", v1, 0, v2, 1, 0, false},
		{"NaN if norm2 is 0", v1, 1, v2, 0, 0, false},
		{"uses the given norms, not the vectors' own", v1, 1, v2, 1, 8, true},
		{"dot product over the shorter prefix; norms as given", []float32{1, 2, 3}, 2, []float32{4, 5}, 7, 14.0 / 14, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := NormalizedCosineSimilarity(tc.a, tc.na, tc.b, tc.nb)
			if !tc.wantOK {
				if !math.IsNaN(got) {
					t.Fatalf("got %v, want NaN", got)
				}
				return
			}
			if math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
