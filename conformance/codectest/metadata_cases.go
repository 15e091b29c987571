package codectest

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/foliovec/folio/core"
)

func metadataCases() []rule {
	return []rule{
		{"metadata round-trips with strings, numbers and bools", checkMetadata},
		{"empty metadata round-trips", checkEmptyMetadata},
		{"zero values in metadata files round-trip", checkZeroValuesMetadata},
		{"unicode metadata keys and values round-trip", checkUnicodeMetadata},
		{"go numbers in metadata files read back as float64", checkGoNumbersMetadata},
		{"non-scalar metadata in metadata files round-trips when claimed", checkNonScalarMetadata},
		{"non-finite metadata numbers are rejected or round-trip as claimed", checkNonFiniteMetadata},
	}
}

// roundTripMetadata encodes and decodes m and records any error or
// difference under label.
func roundTripMetadata(t testing.TB, c core.IndexCodec, m core.Metadata, nonScalars bool, label string) {
	b, err := encodeMetadata(c, m)
	if err != nil {
		t.Errorf("%s: serialize metadata: %v", label, err)
		return
	}
	got, err := decodeMetadata(c, b)
	if err != nil {
		t.Errorf("%s: deserialize metadata: %v", label, err)
		return
	}
	if err := diffMetadata(m, got, nonScalars); err != nil {
		t.Errorf("%s: round trip: %v", label, err)
	}
}

func checkMetadata(t testing.TB, c core.IndexCodec, _ Capabilities) {
	roundTripMetadata(t, c, sampleMetadata(), false, "sample metadata")
	roundTripMetadata(t, c, core.Metadata{"n": 1e21, "m": 1e-7, "p": 0.1, "q": -9007199254740993.0, "big": math.MaxFloat64}, false, "numbers")
}

func checkEmptyMetadata(t testing.TB, c core.IndexCodec, _ Capabilities) {
	roundTripMetadata(t, c, core.Metadata{}, false, "empty metadata")
	roundTripMetadata(t, c, nil, false, "nil metadata")
}

func checkZeroValuesMetadata(t testing.TB, c core.IndexCodec, _ Capabilities) {
	roundTripMetadata(t, c, core.Metadata{"s": "", "n": 0.0, "b": false}, false, `"" 0 false`)
}

func checkUnicodeMetadata(t testing.TB, c core.IndexCodec, _ Capabilities) {
	m := core.Metadata{}
	for i, s := range trickyStrings {
		m[s] = s
		m[fmt.Sprintf("%d:%s", i, s)] = float64(i)
	}
	roundTripMetadata(t, c, m, false, "tricky strings")
}

func checkGoNumbersMetadata(t testing.TB, c core.IndexCodec, _ Capabilities) {
	roundTripMetadata(t, c, goNumbers(), false, "ints, uints and float32")
}

func checkNonScalarMetadata(t testing.TB, c core.IndexCodec, caps Capabilities) {
	if !caps.MetadataFilesPreserveNonScalar {
		return
	}
	roundTripMetadata(t, c, nonScalars(), true, "null, arrays and objects")
}

func checkNonFiniteMetadata(t testing.TB, c core.IndexCodec, caps Capabilities) {
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		m := core.Metadata{"x": x}
		label := fmt.Sprintf("%v", x)
		if !caps.MetadataFilesRejectNonFinite {
			roundTripMetadata(t, c, m, false, label)
			continue
		}
		_, err := encodeMetadata(c, m)
		if !errors.Is(err, core.ErrInvalidArgument) {
			t.Errorf("%s: serialize metadata: got error %v, want one wrapping core.ErrInvalidArgument", label, err)
		}
	}
}
