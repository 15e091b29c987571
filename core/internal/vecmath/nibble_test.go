package vecmath

import (
	"math/rand/v2"
	"testing"
)

// nibbleKernel is one implementation of the 4-bit operations.
type nibbleKernel struct {
	name    string
	many    func(q []int8, codes []byte, out []int32)
	manyIdx func(q []int8, codes []byte, rows []int32, out []int32)
}

func nibbleKernels() []nibbleKernel {
	ks := []nibbleKernel{
		{"dispatch", DotNibbleMany, DotNibbleManyIdx},
		{"generic", dotNibbleManyGeneric, dotNibbleManyIdxGeneric},
	}
	if hasAVX2FMA {
		ks = append(ks, nibbleKernel{"avx2", dotNibbleManyAVX2, dotNibbleManyIdxAVX2})
	}
	return ks
}

// randNibbleRows returns rows of d codes, packed, and the codes unpacked:
// uniform in [0, 15], or all 15 (the largest products).
func randNibbleRows(r *rand.Rand, rows, d int, extremes bool) ([]byte, [][]uint8) {
	n := NibbleStride(d)
	packed := make([]byte, rows*n)
	plain := make([][]uint8, rows)
	for i := range plain {
		plain[i] = make([]uint8, d)
		for j := range plain[i] {
			plain[i][j] = 15
			if !extremes {
				plain[i][j] = uint8(r.IntN(16))
			}
		}
		PackNibbles(packed[i*n:(i+1)*n], plain[i])
	}
	return packed, plain
}

func refNibble(q []int8, codes []uint8) int32 {
	var s int64
	for i, c := range codes {
		s += int64(q[i]) * int64(c)
	}
	return int32(s)
}

func TestNibbleKernelsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, k := range nibbleKernels() {
		for _, d := range []int{0, 1, 63, 64, 100, 384, 768, 1536, 4096} {
			for _, extremes := range []bool{false, true} {
				const rows = 11 // two groups of four and a tail of three
				q := make([]int8, NibbleDims(d))
				copy(q, randCodes(r, d, extremes))
				packed, plain := randNibbleRows(r, rows, d, extremes)
				out := make([]int32, rows)
				k.many(q, packed, out)
				for i := range out {
					if want := refNibble(q, plain[i]); out[i] != want {
						t.Fatalf("%s: many d=%d extremes=%v row %d = %d, want %d", k.name, d, extremes, i, out[i], want)
					}
				}
				idx := []int32{10, 0, 3, 3, 7, 1, 9}
				out = make([]int32, len(idx))
				k.manyIdx(q, packed, idx, out)
				for i, row := range idx {
					if want := refNibble(q, plain[row]); out[i] != want {
						t.Fatalf("%s: manyIdx d=%d extremes=%v row %d = %d, want %d", k.name, d, extremes, row, out[i], want)
					}
				}
			}
		}
	}
}

func TestPackNibblesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, d := range []int{1, 31, 32, 33, 64, 65, 384} {
		_, plain := randNibbleRows(r, 1, d, false)
		row := make([]byte, NibbleStride(d))
		for i := range row {
			row[i] = 0xFF // PackNibbles clears what it does not set
		}
		PackNibbles(row, plain[0])
		for i, c := range plain[0] {
			if got := Nibble(row, i); got != c {
				t.Fatalf("d=%d: code %d = %d, want %d", d, i, got, c)
			}
		}
		for i := d; i < NibbleDims(d); i++ {
			if got := Nibble(row, i); got != 0 {
				t.Fatalf("d=%d: padding code %d = %d, want 0", d, i, got)
			}
		}
	}
}

func BenchmarkDotNibbleMany(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const rows, d = 1_000_000, 384
	packed, _ := randNibbleRows(r, rows, d, false)
	q := randCodes(r, NibbleDims(d), false)
	out := make([]int32, rows)
	b.SetBytes(int64(len(packed)))
	for b.Loop() {
		DotNibbleMany(q, packed, out)
	}
}

func BenchmarkDotInt8ManySameRows(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const rows, d = 100_000, 384
	codes := randCodes(r, rows*d, false)
	q := randCodes(r, d, false)
	out := make([]int32, rows)
	b.SetBytes(int64(len(codes)))
	for b.Loop() {
		DotInt8Many(q, codes, out)
	}
}
