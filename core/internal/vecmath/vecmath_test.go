package vecmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"
)

// kernel is one implementation of the three operations.
type kernel struct {
	name       string
	dot        func(a, b []float32) float32
	dotMany    func(q, arena, out []float32)
	dotManyIdx func(q, arena []float32, rows []int32, out []float32)
}

// kernels lists the public dispatching functions, the portable kernels
// (always, on every platform) and the AVX2 kernels where the CPU has them.
func kernels() []kernel {
	ks := []kernel{
		{"dispatch", Dot, DotMany, DotManyIdx},
		{"generic", dotGeneric, dotManyGeneric, dotManyIdxGeneric},
	}
	if hasAVX2FMA {
		ks = append(ks, kernel{"avx2", dotAVX2, dotManyAVX2, dotManyIdxAVX2})
	}
	return ks
}

// lengths covers every tail (0..67 crosses the 8-, 16- and 32-value blocks
// twice) and real embedding sizes.
func lengths() []int {
	var ns []int
	for n := 0; n <= 67; n++ {
		ns = append(ns, n)
	}
	return append(ns, 127, 128, 129, 383, 384, 385, 767, 768, 1023, 1536, 1537)
}

func randVec(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.Float64()*2 - 1)
	}
	return v
}

// withPoison returns a copy of v whose backing array continues with NaNs:
// a kernel reading past len(v) returns NaN.
func withPoison(v []float32) []float32 {
	p := make([]float32, len(v), len(v)+40)
	copy(p, v)
	for i := len(v); i < cap(p); i++ {
		p[:cap(p)][i] = float32(math.NaN())
	}
	return p
}

// ref64 is the float64 dot product and the sum of |a[i]*b[i]|, which
// bounds the error of any summation order.
func ref64(a, b []float32) (dot, abs float64) {
	for i := range min(len(a), len(b)) {
		p := float64(a[i]) * float64(b[i])
		dot += p
		abs += math.Abs(p)
	}
	return dot, abs
}

// checkClose fails unless got is within the float32 summation bound of the
// float64 reference: (n+4) units of 2^-24 relative to sum |a[i]*b[i]|.
func checkClose(t *testing.T, what string, got float32, a, b []float32) {
	t.Helper()
	want, abs := ref64(a, b)
	n := min(len(a), len(b))
	bound := float64(n+4) * 0x1p-24 * abs
	if math.IsNaN(float64(got)) || math.Abs(float64(got)-want) > bound {
		t.Fatalf("%s: n=%d got %v, want %v ± %g", what, n, got, want, bound)
	}
}

func TestDotMatchesFloat64Reference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range kernels() {
		t.Run(k.name, func(t *testing.T) {
			for _, n := range lengths() {
				a, b := withPoison(randVec(r, n)), withPoison(randVec(r, n))
				checkClose(t, "Dot", k.dot(a, b), a, b)
			}
		})
	}
}

func TestDotUsesTheShorterLength(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, k := range kernels() {
		t.Run(k.name, func(t *testing.T) {
			for _, n := range []int{0, 1, 7, 9, 33, 384} {
				long := randVec(r, n+13)
				short := withPoison(long[:n:n])
				other := randVec(r, n+5)
				checkClose(t, "short·long", k.dot(short, other), short, other[:n])
				checkClose(t, "long·short", k.dot(other, short), other[:n], short)
			}
		})
	}
}

func TestDotExactOnSmallIntegers(t *testing.T) {
	// Integer products and sums below 2^24 are exact in any order.
	for _, k := range kernels() {
		t.Run(k.name, func(t *testing.T) {
			for _, n := range lengths() {
				a, b := make([]float32, n), make([]float32, n)
				var want float32
				for i := range a {
					a[i], b[i] = float32(i%7-3), float32(i%5+1)
					want += a[i] * b[i]
				}
				if got := k.dot(a, b); got != want {
					t.Fatalf("n=%d: got %v, want %v", n, got, want)
				}
			}
		})
	}
}

func TestDotManyMatchesDotPerRow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, k := range kernels() {
		t.Run(k.name, func(t *testing.T) {
			for _, d := range lengths() {
				for _, rows := range []int{0, 1, 3, 4, 5, 8, 11} {
					q := withPoison(randVec(r, d))
					arena := withPoison(randVec(r, rows*d))
					out := make([]float32, rows+1)
					const sentinel = 12345
					out[rows] = sentinel
					k.dotMany(q, arena, out[:rows])
					for i := range rows {
						checkClose(t, fmt.Sprintf("d=%d row %d of %d", d, i, rows), out[i], q, arena[i*d:(i+1)*d])
					}
					if out[rows] != sentinel {
						t.Fatalf("d=%d rows=%d: wrote past out", d, rows)
					}
				}
			}
		})
	}
}

func TestDotManyIdxGathersRows(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, k := range kernels() {
		t.Run(k.name, func(t *testing.T) {
			for _, d := range lengths() {
				const nrows = 9
				q := withPoison(randVec(r, d))
				arena := withPoison(randVec(r, nrows*d))
				// Out of order, with repeats, and every count of 4-row blocks and tails.
				for _, rows := range [][]int32{{}, {8}, {3, 3}, {8, 0, 4, 2}, {5, 1, 7, 1, 0, 6, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8}} {
					out := make([]float32, len(rows)+1)
					const sentinel = -777
					out[len(rows)] = sentinel
					k.dotManyIdx(q, arena, rows, out)
					for i, ri := range rows {
						checkClose(t, fmt.Sprintf("d=%d rows=%v [%d]", d, rows, i), out[i], q, arena[int(ri)*d:int(ri+1)*d])
					}
					if out[len(rows)] != sentinel {
						t.Fatalf("d=%d rows=%v: wrote past len(rows)", d, rows)
					}
				}
			}
		})
	}
}

// TestARowScoresAlikeInEveryScan: an unfiltered scan (DotMany) and a
// filtered one (DotManyIdx, the row gathered with any neighbours, in any
// order) give a row bitwise the same dot product, so that a query's
// scores, and its ties, never depend on its filter.
func TestARowScoresAlikeInEveryScan(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, k := range kernels() {
		t.Run(k.name, func(t *testing.T) {
			for _, d := range lengths() {
				const nrows = 11
				q, arena := randVec(r, d), randVec(r, nrows*d)
				all := make([]float32, nrows)
				k.dotMany(q, arena, all)
				for _, rows := range [][]int32{{3}, {10, 9}, {7, 1, 4}, {0, 2, 4, 6, 8, 10}, {10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}} {
					out := make([]float32, len(rows))
					k.dotManyIdx(q, arena, rows, out)
					for i, ri := range rows {
						if math.Float32bits(out[i]) != math.Float32bits(all[ri]) {
							t.Fatalf("d=%d row %d: gathered among %v %v, scanned %v", d, ri, rows, out[i], all[ri])
						}
					}
				}
				// A scan starting at any row scores it alike too.
				for lo := range nrows {
					part := make([]float32, nrows-lo)
					k.dotMany(q, arena[lo*d:], part)
					for i := range part {
						if math.Float32bits(part[i]) != math.Float32bits(all[lo+i]) {
							t.Fatalf("d=%d row %d: scanned from row %d %v, from 0 %v", d, lo+i, lo, part[i], all[lo+i])
						}
					}
				}
			}
		})
	}
}

func TestKernelsAgreeOnLargeArena(t *testing.T) {
	// The same rows through every kernel, at an embedding size: the results
	// differ only by float32 rounding.
	r := rand.New(rand.NewPCG(9, 10))
	const d, rows = 384, 257
	q, arena := randVec(r, d), randVec(r, d*rows)
	for _, k := range kernels() {
		out := make([]float32, rows)
		k.dotMany(q, arena, out)
		for i := range out {
			checkClose(t, k.name, out[i], q, arena[i*d:(i+1)*d])
		}
	}
}

func TestZeroColumns(t *testing.T) {
	for _, k := range kernels() {
		t.Run(k.name, func(t *testing.T) {
			out := []float32{1, 2, 3, 4, 5}
			k.dotMany(nil, nil, out)
			for i, v := range out {
				if v != 0 {
					t.Fatalf("DotMany with no columns: out[%d] = %v, want 0", i, v)
				}
			}
			out = []float32{1, 2, 3, 4, 5}
			k.dotManyIdx(nil, nil, []int32{0, 3, 1, 2, 9}, out)
			for i, v := range out {
				if v != 0 {
					t.Fatalf("DotManyIdx with no columns: out[%d] = %v, want 0", i, v)
				}
			}
		})
	}
}

func TestBadShapesPanic(t *testing.T) {
	q := []float32{1, 2}
	cases := []struct {
		name string
		call func()
	}{
		{"DotMany with an arena shorter than len(out) rows", func() { DotMany(q, make([]float32, 7), make([]float32, 4)) }},
		{"DotManyIdx with a row past the arena", func() { DotManyIdx(q, make([]float32, 8), []int32{0, 4}, make([]float32, 2)) }},
		{"DotManyIdx with a negative row", func() { DotManyIdx(q, make([]float32, 8), []int32{-1}, make([]float32, 1)) }},
		{"DotManyIdx with out shorter than rows", func() { DotManyIdx(q, make([]float32, 8), []int32{0, 1}, make([]float32, 1)) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tc.call()
		})
	}
}

// TestCPUFeatureDetection: on Linux/amd64 the CPUID check agrees with the
// kernel's view of the CPU flags.
func TestCPUFeatureDetection(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("checks CPUID against /proc/cpuinfo on linux/amd64 only")
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skipf("no /proc/cpuinfo: %v", err)
	}
	var flags []string
	for line := range strings.Lines(string(info)) {
		if name, val, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
			flags = strings.Fields(val)
			break
		}
	}
	has := func(f string) bool {
		for _, x := range flags {
			if x == f {
				return true
			}
		}
		return false
	}
	want := has("avx2") && has("fma") && has("avx")
	if purego {
		want = false
	}
	if hasAVX2FMA != want {
		t.Fatalf("hasAVX2FMA = %v, /proc/cpuinfo says %v", hasAVX2FMA, want)
	}
}

func TestSum(t *testing.T) {
	for _, n := range lengths() {
		v := make([]float32, n)
		var want float32
		for i := range v {
			v[i] = float32(i % 7) // small integers: every order sums exactly
			want += v[i]
		}
		if got := Sum(v); got != want {
			t.Fatalf("n=%d: Sum = %v, want %v", n, got, want)
		}
		if got := sumGeneric(v); got != want {
			t.Fatalf("n=%d: sumGeneric = %v, want %v", n, got, want)
		}
	}
}

// DotMany4 gives each query bitwise what DotMany gives it, at every length
// and row count, with or without next rows to fetch (as long as the
// arena's rows, shorter, or none), and reads nothing past a row or the
// arena.
func TestDotMany4MatchesDotMany(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, d := range lengths() {
		for _, tc := range []struct{ rows, next int }{{0, 0}, {1, 0}, {3, 3}, {4, 0}, {4, 4}, {17, 16}, {17, 17}} {
			rows := tc.rows
			var qs, outs [4][]float32
			for j := range qs {
				qs[j] = withPoison(randVec(r, d))
				outs[j] = make([]float32, rows+1)
				outs[j][rows] = 999
				outs[j] = outs[j][:rows]
			}
			arena := withPoison(randVec(r, rows*d))
			var next []float32
			if tc.next > 0 {
				next = randVec(r, tc.next*d)
			}
			DotMany4(&qs, arena, next, &outs)
			for j := range qs {
				want := make([]float32, rows)
				DotMany(qs[j], arena, want)
				for i := range rows {
					if math.Float32bits(outs[j][i]) != math.Float32bits(want[i]) {
						t.Fatalf("d=%d rows=%d next=%d query %d row %d: %v, DotMany %v", d, rows, tc.next, j, i, outs[j][i], want[i])
					}
				}
				if outs[j][:rows+1][rows] != 999 {
					t.Fatalf("d=%d rows=%d query %d: wrote past its rows", d, rows, j)
				}
			}
		}
	}
}
