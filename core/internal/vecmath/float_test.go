package vecmath

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestQuantizeInt8(t *testing.T) {
	v := []float32{0.5, -1, 0.25, 0, -0.004}
	dst := make([]int8, 32)
	step := QuantizeInt8(dst, v)
	if step != float32(1)/127 {
		t.Errorf("step = %v", step)
	}
	if want := []int8{64, -127, 32, 0, -1}; !slices.Equal(dst[:5], want) {
		t.Errorf("codes = %v, want %v", dst[:5], want)
	}
	if slices.ContainsFunc(dst[5:], func(c int8) bool { return c != 0 }) {
		t.Error("padding not zero")
	}
	if step := QuantizeInt8(dst, []float32{0, 0}); step != 0 {
		t.Errorf("zero vector step = %v", step)
	}
	inf := float32(math.Inf(1))
	for _, bad := range [][]float32{{1, float32(math.NaN()), 2}, {1, inf}, {-inf, 0.5}, {float32(math.NaN())}} {
		if step := QuantizeInt8(make([]int8, 4), bad); step != 0 {
			t.Errorf("%v: step %v, want 0 (not quantized)", bad, step)
		}
	}
	// Every code is the value rounded to the nearest step.
	rng := rand.New(rand.NewPCG(7, 7))
	for range 200 {
		v := make([]float32, 1+rng.IntN(50))
		for i := range v {
			v[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(6)-3)))
		}
		codes := make([]int8, len(v))
		step := QuantizeInt8(codes, v)
		for i, x := range v {
			if d := math.Abs(float64(x) - float64(step)*float64(codes[i])); d > float64(step)*0.5001 {
				t.Fatalf("%v quantized to %d×%v: off by %v, more than half a step", x, codes[i], step, d)
			}
		}
	}
}
