package core

import (
	"math"

	"github.com/foliovec/folio/core/internal/vecmath"
)

// CosineSimilarity returns the cosine of the angle between a and b, computed
// in float64 (Vectra's ItemSelector.cosineSimilarity). Both vectors are
// truncated to the shorter length, norms included; the result is NaN when
// either truncated vector has a zero norm.
func CosineSimilarity(a, b []float32) float64 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	return NormalizedCosineSimilarity(a, Norm(a), b, Norm(b))
}

// Norm returns the Euclidean length of v, computed in float64; 0 for an
// empty vector. (Vectra calls it normalize, but it returns the length: the
// vector is not changed.)
func Norm(v []float32) float64 {
	// One accumulator, in index order, as Vectra sums: the same inputs give
	// the same bits. The explicit conversion keeps the compiler from fusing
	// the multiply and add (it may on arm64), which would change the bits.
	var s float64
	for _, x := range v {
		s += float64(float64(x) * float64(x))
	}
	return math.Sqrt(s)
}

// NormalizedCosineSimilarity returns dot(a, b) / (normA * normB) with the
// dot product over the first min(len(a), len(b)) elements, computed in
// float64 (Vectra's ItemSelector.normalizedCosineSimilarity). normA and
// normB are the vectors' precomputed lengths (see [Norm]); the result is NaN
// when either is 0.
func NormalizedCosineSimilarity(a []float32, normA float64, b []float32, normB float64) float64 {
	if normA == 0 || normB == 0 {
		return math.NaN()
	}
	return vecmath.Dot64(a, b) / (normA * normB)
}
