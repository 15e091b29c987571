package embedonnx

import (
	"math"
	"testing"
)

func TestHalfToFloat(t *testing.T) {
	for _, tc := range []struct {
		name string
		bits uint16
		want float32
	}{
		{"one", 0x3C00, 1},
		{"minus two", 0xC000, -2},
		{"largest normal", 0x7BFF, 65504},
		{"smallest normal", 0x0400, 1.0 / 16384},
		{"smallest subnormal", 0x0001, 1.0 / 16777216},
		{"negative subnormal", 0x8200, -1.0 / 32768},
		{"zero", 0x0000, 0},
		{"infinity", 0x7C00, float32(math.Inf(1))},
		{"one third, rounded", 0x3555, 0.333251953125},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := halfToFloat(tc.bits); got != tc.want {
				t.Errorf("halfToFloat(%#04x) = %g, want %g", tc.bits, got, tc.want)
			}
		})
	}
	if got := halfToFloat(0x7E00); !math.IsNaN(float64(got)) {
		t.Errorf("halfToFloat(NaN) = %g", got)
	}
	if got := halfToFloat(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("halfToFloat(-0) = %g, want -0", got)
	}
}
