package codectest

import (
	"errors"
	"fmt"
	"math"

	"github.com/foliovec/folio/core"
)

func metadataCases() []testCase {
	return []testCase{
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
func roundTripMetadata(c core.IndexCodec, m core.Metadata, nonScalars bool, r *report, label string) {
	b, err := encodeMetadata(c, m)
	if err != nil {
		r.errorf("%s: serialize metadata: %w", label, err)
		return
	}
	got, err := decodeMetadata(c, b)
	if err != nil {
		r.errorf("%s: deserialize metadata: %w", label, err)
		return
	}
	if err := diffMetadata(m, got, nonScalars); err != nil {
		r.errorf("%s: round trip: %w", label, err)
	}
}

func checkMetadata(c core.IndexCodec, _ Capabilities, r *report) {
	roundTripMetadata(c, sampleMetadata(), false, r, "sample metadata")
	roundTripMetadata(c, core.Metadata{"n": 1e21, "m": 1e-7, "p": 0.1, "q": -9007199254740993.0, "big": math.MaxFloat64}, false, r, "numbers")
}

func checkEmptyMetadata(c core.IndexCodec, _ Capabilities, r *report) {
	roundTripMetadata(c, core.Metadata{}, false, r, "empty metadata")
	roundTripMetadata(c, nil, false, r, "nil metadata")
}

func checkZeroValuesMetadata(c core.IndexCodec, _ Capabilities, r *report) {
	roundTripMetadata(c, core.Metadata{"s": "", "n": 0.0, "b": false}, false, r, `"" 0 false`)
}

func checkUnicodeMetadata(c core.IndexCodec, _ Capabilities, r *report) {
	m := core.Metadata{}
	for i, s := range trickyStrings {
		m[s] = s
		m[fmt.Sprintf("%d:%s", i, s)] = float64(i)
	}
	roundTripMetadata(c, m, false, r, "tricky strings")
}

func checkGoNumbersMetadata(c core.IndexCodec, _ Capabilities, r *report) {
	roundTripMetadata(c, goNumbers(), false, r, "ints, uints and float32")
}

func checkNonScalarMetadata(c core.IndexCodec, caps Capabilities, r *report) {
	if !caps.MetadataFilesPreserveNonScalar {
		return
	}
	roundTripMetadata(c, nonScalars(), true, r, "null, arrays and objects")
}

func checkNonFiniteMetadata(c core.IndexCodec, caps Capabilities, r *report) {
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		m := core.Metadata{"x": x}
		label := fmt.Sprintf("%v", x)
		if !caps.MetadataFilesRejectNonFinite {
			roundTripMetadata(c, m, false, r, label)
			continue
		}
		_, err := encodeMetadata(c, m)
		if !errors.Is(err, core.ErrInvalidArgument) {
			r.errorf("%s: serialize metadata: got error %v, want one wrapping core.ErrInvalidArgument", label, err)
		}
	}
}
