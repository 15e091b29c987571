package codecpb

import (
	"encoding/binary"
	"math"
	"testing"
)

// decodeFloatsByOne is decodeFloats one component at a time: the
// reference its word-at-a-time check must agree with.
func decodeFloatsByOne(src []byte) []float32 {
	out := make([]float32, len(src)/4)
	for i := range out {
		out[i] = finite32(binary.LittleEndian.Uint32(src[4*i:]))
	}
	return out
}

func checkDecodeFloats(t *testing.T, src []byte) {
	t.Helper()
	got := make([]float32, len(src)/4)
	decodeFloats(got, src)
	want := decodeFloatsByOne(src)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("component %d of %d: got %#x, want %#x", i, len(want), math.Float32bits(got[i]), math.Float32bits(want[i]))
		}
	}
}

// NaN and ±Inf read as 0 wherever they stand in a vector of any length
// (the check takes eight components at a time, then the rest one by one);
// the largest finite values, subnormals and -0 read as themselves.
func TestDecodeFloatsZeroesNonFiniteAnywhere(t *testing.T) {
	specials := []uint32{
		0x7f800000, 0xff800000, // ±Inf
		0x7fc00000, 0xffc00000, 0x7f800001, 0x7fffffff, // NaNs
		0x7f7fffff, 0xff7fffff, // ±MaxFloat32
		0x00000001, 0x80000000, 0x3f800000, // a subnormal, -0, 1
	}
	for n := 0; n <= 41; n++ {
		for pos := range n {
			for _, s := range specials {
				src := make([]byte, 4*n)
				for i := range n {
					binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(float32(i)+0.5))
				}
				binary.LittleEndian.PutUint32(src[4*pos:], s)
				checkDecodeFloats(t, src)
			}
		}
	}
}

func FuzzDecodeFloats(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0x80, 0x7f})
	f.Add(make([]byte, 64))
	nan := make([]byte, 40)
	binary.LittleEndian.PutUint32(nan[28:], 0x7fc00000)
	f.Add(nan)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecodeFloats(t, b[:len(b)/4*4])
	})
}
