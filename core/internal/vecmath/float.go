package vecmath

import (
	"math"
	"runtime"
	"sync"
)

// Length is the Euclidean length of v, summed in float64 (in four
// interleaved partial sums, for speed). It is NaN or +Inf when v holds a
// non-finite value.
func Length(v []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		a, b, c, d := float64(v[i]), float64(v[i+1]), float64(v[i+2]), float64(v[i+3])
		s0 += a * a
		s1 += b * b
		s2 += c * c
		s3 += d * d
	}
	for ; i < len(v); i++ {
		f := float64(v[i])
		s0 += f * f
	}
	return math.Sqrt((s0 + s1) + (s2 + s3))
}

// Scale is the scale a vector of length n scores with: n, or 0 when
// the vector has no usable direction.
func Scale(n float64) float64 {
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0
	}
	return n
}

// FastScale is Scale(Length(v)), with the length summed in
// float32 by the dot-product kernel when that neither underflows nor
// overflows.
func FastScale(v []float32) float64 {
	sq := Dot(v, v)
	if sq == 0 || math.IsInf(float64(sq), 0) || sq != sq {
		return Scale(Length(v))
	}
	return math.Sqrt(float64(sq))
}

// QuantizeInt8 writes v's codes into dst[:len(v)] (len(dst) >= len(v); the
// rest is left as it is) and returns the quantization step: v[i] ≈
// step·dst[i]. A vector of zeros, or with a NaN or an infinity, gets zero
// codes and a step of 0.
func QuantizeInt8(dst []int8, v []float32) float32 {
	// The largest magnitude, by comparisons: the built-in max handles NaN
	// and signed zeros value by value, several times slower. probe is 0
	// unless some value is NaN or infinite (x·0 is NaN for those).
	var m, m2, probe float32
	i := 0
	for ; i+1 < len(v); i += 2 {
		x, y := v[i], v[i+1]
		if a := float32(math.Abs(float64(x))); a > m {
			m = a
		}
		if b := float32(math.Abs(float64(y))); b > m2 {
			m2 = b
		}
		probe += x*0 + y*0
	}
	for ; i < len(v); i++ {
		if a := float32(math.Abs(float64(v[i]))); a > m {
			m = a
		}
		probe += v[i] * 0
	}
	m = max(m, m2)
	if m == 0 || probe != 0 {
		clear(dst[:len(v)])
		return 0
	}
	// x·inv lies in [-127, 127] (m is the largest magnitude), so
	// x·inv + 128.5 is positive and converting it truncates, which is
	// rounding to nearest, halves up, without a branch per value.
	inv := 127 / m
	dst = dst[:len(v)]
	for i, x := range v {
		dst[i] = int8(int32(x*inv+128.5) - 128)
	}
	return m / 127
}

// Contiguous reports whether n vectors (all of length d > 0) lie one
// after another in one backing array reachable from the first, and returns
// that array.
func Contiguous(n, d int, vec func(i int) []float32) ([]float32, bool) {
	total := n * d
	first := vec(0)
	if cap(first) < total {
		return nil, false
	}
	all := first[:total]
	for i := range n {
		if &all[i*d] != &vec(i)[0] {
			return nil, false
		}
	}
	return all, true
}

// Dot64 is the float64 dot product of a and b over the shorter length,
// summed in index order as Vectra does.
func Dot64(a, b []float32) float64 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var s float64
	for i := range a {
		s += float64(float64(a[i]) * float64(b[i])) // no fused multiply-add, as in Norm
	}
	return s
}

// ParallelRanges splits 0..n-1 into one contiguous range per core (one
// range when n is under two minPerWorker) and runs fn on each concurrently.
func ParallelRanges(n, minPerWorker int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n/minPerWorker)
	if workers <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { fn(w*n/workers, (w+1)*n/workers) })
	}
	wg.Wait()
}

// IsArenaOf reports whether arena holds the n vectors vec(i), each of
// length d > 0, one after another.
func IsArenaOf(arena []float32, d, n int, vec func(i int) []float32) bool {
	if len(arena) != n*d {
		return false
	}
	for i := range n {
		if &arena[i*d] != &vec(i)[0] {
			return false
		}
	}
	return true
}
