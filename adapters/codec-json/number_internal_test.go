package codecjson

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/foliovec/folio/core/jsvalue"
)

// parseNumber must agree with strconv.ParseFloat(s, 32) on every JSON
// number (its fast path must never round differently).
func TestParseNumberAgreesWithStrconv(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 64))
	check := func(s string) {
		t.Helper()
		want, wantErr := strconv.ParseFloat(s, 32)
		got, end, err := parseNumber([]byte(s), 0)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("parseNumber(%q) error = %v, strconv says %v", s, err, wantErr)
		}
		if err == nil && end != len(s) {
			t.Fatalf("parseNumber(%q) stopped at %d, want %d", s, end, len(s))
		}
		if err == nil && math.Float32bits(got) != math.Float32bits(float32(want)) {
			t.Fatalf("parseNumber(%q) = %v (%#x), want %v (%#x)", s, got, math.Float32bits(got), float32(want), math.Float32bits(float32(want)))
		}
	}
	for _, s := range []string{
		"0", "-0", "0.0", "1", "-1", "0.1", "1e-7", "1E+3", "3.4028235e+38", "3.4028236e+38", "1e39", "-1e39",
		"1e-45", "1e-46", "1.1754944e-38", "1.1754942e-38", "7.038531e-26", "0.00000000000000000000001",
		"123456789012345", "1234567890123456", "12345678901234567890", "0.30000000000000004",
		"-0.8489434821237285", "0.9999999999999999", "16777217", "16777216.5", "0.000000059604645",
	} {
		check(s)
	}
	// Shortest float32 text of random float32 values (what Folio writes),
	// float64 text (what Vectra writes), and float32 midpoints.
	for range 200_000 {
		x := math.Float32frombits(r.Uint32())
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			continue
		}
		check(string(jsvalue.AppendFloat32(nil, x)))
		check(string(jsvalue.AppendJSONNumber(nil, r.NormFloat64()*math.Pow(10, float64(r.IntN(12)-8)))))
		lo := float64(math.Float32frombits(r.Uint32() & 0x7effffff))
		hi := float64(math.Nextafter32(float32(lo), float32(math.Inf(1))))
		check(strconv.FormatFloat((lo+hi)/2, 'f', -1, 64))
	}
}
