package jsvalue

import (
	"encoding/json"
	"math"
	"strconv"
)

// AppendNumber appends f as JavaScript's Number.prototype.toString (and
// String(f)) writes it: the shortest decimal that reads back as f, without
// ".0", in exponent form below 1e-6 and from 1e21 on ("1e-7", "1e+21"),
// -0 as "0", and "NaN", "Infinity", "-Infinity".
func AppendNumber(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	return appendFinite(b, f, 64)
}

// FormatNumber is AppendNumber as a string.
func FormatNumber(f float64) string { return string(AppendNumber(nil, f)) }

// AppendJSONNumber appends f as JSON.stringify writes a number: as
// AppendNumber, but NaN and ±Infinity as "null".
func AppendJSONNumber(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return appendFinite(b, f, 64)
}

// AppendFloat32 appends a finite x in JavaScript's layout with the
// shortest decimal that reads back as the same float32 (how Folio writes
// vectors, which Vectra reads as numbers and stores as float32).
func AppendFloat32(b []byte, x float32) []byte { return appendFinite(b, float64(x), 32) }

// appendFinite writes a finite f with the shortest digits for bitSize in
// JavaScript's layout.
func appendFinite(b []byte, f float64, bitSize int) []byte {
	if f == 0 {
		return append(b, '0') // also -0, as JavaScript writes it
	}
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		start := len(b)
		b = strconv.AppendFloat(b, f, 'e', -1, bitSize)
		// Go writes at least two exponent digits ("1e-07"); JavaScript
		// as many as needed ("1e-7").
		if n := len(b); n-start >= 4 && b[n-4] == 'e' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
		return b
	}
	return strconv.AppendFloat(b, f, 'f', -1, bitSize)
}

// Number reports whether v is a Go number — any integer or float type, or
// a json.Number that parses — and its value as the float64 JavaScript would
// hold (large integers rounded).
func Number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int8:
		return float64(n), true
	case int16:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint8:
		return float64(n), true
	case uint16:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case uintptr:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
