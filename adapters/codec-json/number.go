package codecjson

import (
	"math"
	"strconv"
)

// appendFloat32 appends x as JavaScript's JSON.stringify would write the
// number, using the shortest decimal that reads back as the same float32:
// no ".0" on integers, exponent form below 1e-6 and from 1e21 on ("1e-7",
// "1e+21"), and 0 for -0. x must be finite.
func appendFloat32(b []byte, x float32) []byte {
	if x == 0 {
		return append(b, '0') // also -0, as JSON.stringify writes it
	}
	abs := x
	if abs < 0 {
		abs = -abs
	}
	if abs < 1e-6 || abs >= 1e21 {
		return trimExponent(strconv.AppendFloat(b, float64(x), 'e', -1, 32), len(b))
	}
	return strconv.AppendFloat(b, float64(x), 'f', -1, 32)
}

// appendFloat64 is appendFloat32 for float64: the shortest decimal that
// reads back as the same float64, laid out as JSON.stringify does. x must be
// finite.
func appendFloat64(b []byte, x float64) []byte {
	if x == 0 {
		return append(b, '0')
	}
	if abs := math.Abs(x); abs < 1e-6 || abs >= 1e21 {
		return trimExponent(strconv.AppendFloat(b, x, 'e', -1, 64), len(b))
	}
	return strconv.AppendFloat(b, x, 'f', -1, 64)
}

// trimExponent turns Go's two-digit exponent ("1e-07", "1e+21" stays) into
// JavaScript's ("1e-7") in the number that starts at b[start:].
func trimExponent(b []byte, start int) []byte {
	n := len(b)
	// The exponent is the last 2 or 3 digits after "e+" or "e-".
	if n-start >= 4 && b[n-4] == 'e' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// isFinite reports whether x is neither NaN nor ±Inf.
func isFinite(x float64) bool {
	return !math.IsNaN(x) && !math.IsInf(x, 0)
}
