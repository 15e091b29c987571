package vecmath

import (
	"math/rand/v2"
	"testing"
)

// int8Kernel is one implementation of the int8 operations.
type int8Kernel struct {
	name    string
	dot     func(a, b []int8) int32
	many    func(q, codes []int8, out []int32)
	manyIdx func(q, codes []int8, rows []int32, out []int32)
}

func int8Kernels() []int8Kernel {
	ks := []int8Kernel{
		{"dispatch", DotInt8, DotInt8Many, DotInt8ManyIdx},
		{"generic", dotInt8Generic, dotInt8ManyGeneric, dotInt8ManyIdxGeneric},
	}
	if hasAVX2FMA {
		ks = append(ks, int8Kernel{"avx2", dotInt8AVX2, dotInt8ManyAVX2, dotInt8ManyIdxAVX2})
	}
	return ks
}

// randCodes fills n codes: uniform in [-127, 127], or only the extremes
// ±127 (the largest products, where int16 saturation would show).
func randCodes(r *rand.Rand, n int, extremes bool) []int8 {
	c := make([]int8, n)
	for i := range c {
		if extremes {
			c[i] = int8(127 - 254*r.IntN(2))
		} else {
			c[i] = int8(r.IntN(255) - 127)
		}
	}
	return c
}

func refInt8(a, b []int8) int32 {
	var s int64
	for i := range a {
		s += int64(a[i]) * int64(b[i])
	}
	return int32(s)
}

func TestInt8KernelsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, k := range int8Kernels() {
		for _, d := range []int{0, 32, 64, 96, 384, 768, 1536, 4096} {
			for _, extremes := range []bool{false, true} {
				const rows = 11 // two groups of four and a tail of three
				q := randCodes(r, d, extremes)
				codes := randCodes(r, rows*d, extremes)
				if d > 0 {
					if got, want := k.dot(q, codes[:d]), refInt8(q, codes[:d]); got != want {
						t.Fatalf("%s: dot d=%d extremes=%v = %d, want %d", k.name, d, extremes, got, want)
					}
				}
				out := make([]int32, rows)
				k.many(q, codes, out)
				for i := range rows {
					if want := refInt8(q, codes[i*d:(i+1)*d]); out[i] != want {
						t.Fatalf("%s: many d=%d row %d = %d, want %d", k.name, d, i, out[i], want)
					}
				}
				idx := []int32{10, 0, 3, 3, 7, 1, 9}
				out = make([]int32, len(idx)+2)
				k.manyIdx(q, codes, idx, out)
				for i, row := range idx {
					if want := refInt8(q, codes[int(row)*d:int(row+1)*d]); out[i] != want {
						t.Fatalf("%s: manyIdx d=%d row %d = %d, want %d", k.name, d, row, out[i], want)
					}
				}
			}
		}
	}
}

// All ±127 of one sign: the largest sum a row can reach, 127·127·d.
func TestInt8KernelsLargestSums(t *testing.T) {
	for _, k := range int8Kernels() {
		d := 8192
		a := make([]int8, d)
		b := make([]int8, 4*d)
		for i := range a {
			a[i] = -127
		}
		for i := range b {
			b[i] = -127
		}
		out := make([]int32, 4)
		k.many(a, b, out)
		for i, got := range out {
			if want := int32(127 * 127 * d); got != want {
				t.Fatalf("%s: row %d = %d, want %d", k.name, i, got, want)
			}
		}
	}
}

func TestInt8LengthChecks(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	mustPanic("unpadded", func() { DotInt8Many(make([]int8, 31), make([]int8, 62), make([]int32, 2)) })
	mustPanic("short codes", func() { DotInt8Many(make([]int8, 32), make([]int8, 63), make([]int32, 2)) })
	mustPanic("row out of range", func() {
		DotInt8ManyIdx(make([]int8, 32), make([]int8, 64), []int32{2}, make([]int32, 1))
	})
	if got := Int8Stride(384); got != 384 {
		t.Errorf("Int8Stride(384) = %d", got)
	}
	if got := Int8Stride(385); got != 416 {
		t.Errorf("Int8Stride(385) = %d", got)
	}
}

func BenchmarkDotInt8Many(b *testing.B) {
	const n, d = 100_000, 384
	r := rand.New(rand.NewPCG(1, 2))
	q := randCodes(r, d, false)
	codes := randCodes(r, n*d, false)
	out := make([]int32, n)
	for _, k := range int8Kernels()[1:] {
		b.Run(k.name, func(b *testing.B) {
			b.SetBytes(int64(len(codes)))
			for b.Loop() {
				k.many(q, codes, out)
			}
		})
	}
}

// A row's float32 dot product is the same bits whichever rows it is
// scored with: in a group of four, in a tail, through a candidate list.
// The quantized scan's exact re-rank relies on it to return the exact
// scan's scores.
func TestDotManyRowIndependent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, k := range kernels() {
		for _, d := range []int{1, 7, 8, 17, 384, 385} {
			const rows = 9
			q := randVec(r, d)
			arena := randVec(r, rows*d)
			all := make([]float32, rows)
			k.dotMany(q, arena, all)
			for n := 1; n <= rows; n++ {
				part := make([]float32, n)
				k.dotMany(q, arena[(rows-n)*d:], part)
				for i := range n {
					if part[i] != all[rows-n+i] {
						t.Fatalf("%s d=%d: row %d alone with %d rows: %v, in the full scan %v", k.name, d, rows-n+i, n, part[i], all[rows-n+i])
					}
				}
				idx := r.Perm(rows)[:n]
				rowsIdx := make([]int32, n)
				for i, x := range idx {
					rowsIdx[i] = int32(x)
				}
				k.dotManyIdx(q, arena, rowsIdx, part)
				for i, row := range rowsIdx {
					if part[i] != all[row] {
						t.Fatalf("%s d=%d: row %d through a candidate list: %v, in the full scan %v", k.name, d, row, part[i], all[row])
					}
				}
			}
		}
	}
}
