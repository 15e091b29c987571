// Package vecmath holds the dot-product kernels of the query scan.
//
// CONTRACT STUB: portable versions; the kernel work item adds the fast ones.
package vecmath

// Dot returns the dot product of a and b over min(len(a), len(b)) elements.
func Dot(a, b []float32) float32 {
	n := min(len(a), len(b))
	var s float32
	for i := 0; i < n; i++ {
		s += a[i] * b[i]
	}
	return s
}

// DotMany writes into out[i] the dot product of q with the i-th row of arena,
// a row-major matrix of len(out) rows of len(q) columns.
func DotMany(q, arena, out []float32) {
	d := len(q)
	for i := range out {
		out[i] = Dot(q, arena[i*d:(i+1)*d])
	}
}
