package codectest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/foliovec/folio/core"
)

func indexCases() []rule {
	return []rule{
		{"extension is non-empty and starts with a dot", checkExtension},
		{"empty index round-trips", checkEmptyIndex},
		{"index version is carried", checkIndexVersion},
		{"items keep their order", checkItemOrder},
		{"index item fields round-trip", checkItemFields},
		{"unicode ids, metadata keys and values round-trip", checkUnicodeIndex},
		{"1536-dimension vectors round-trip", checkLongVectors},
		{"zero values in index metadata round-trip", checkZeroValuesIndex},
		{"absent optional fields stay absent", checkAbsentIndexFields},
		{"indexed keys round-trip", checkIndexedKeys},
		{"empty metadata and vectors read back empty", checkEmptyItemParts},
		{"numbers round-trip exactly", checkExactNumbers},
		{"go numbers in index metadata read back as float64", checkGoNumbersIndex},
		{"non-scalar index metadata round-trips when claimed", checkNonScalarIndex},
		{"non-finite numbers are rejected or round-trip as claimed", checkNonFiniteIndex},
	}
}

func checkExtension(t testing.TB, c core.IndexCodec, _ Capabilities) {
	ext := c.Extension()
	if len(ext) < 2 || !strings.HasPrefix(ext, ".") {
		t.Errorf("Extension() = %q, want a dot and at least one more character", ext)
	}
	if strings.ContainsAny(ext, `/\`) {
		t.Errorf("Extension() = %q, want no path separator", ext)
	}
}

// roundTripIndex encodes and decodes d and records any error or difference
// under label.
func roundTripIndex(t testing.TB, c core.IndexCodec, d core.IndexData, h how, label string) {
	b, err := encodeIndex(c, d)
	if err != nil {
		t.Errorf("%s: serialize index: %v", label, err)
		return
	}
	got, err := decodeIndex(c, b)
	if err != nil {
		t.Errorf("%s: deserialize index: %v", label, err)
		return
	}
	if err := diffIndex(d, got, h); err != nil {
		t.Errorf("%s: round trip: %v", label, err)
	}
}

func checkEmptyIndex(t testing.TB, c core.IndexCodec, caps Capabilities) {
	roundTripIndex(t, c, core.IndexData{Version: 1}, indexHow(caps), "nil items")
	roundTripIndex(t, c, core.IndexData{Version: 1, Items: []core.IndexItem{}}, indexHow(caps), "empty items")
	roundTripIndex(t, c, core.IndexData{}, indexHow(caps), "zero IndexData")
}

func checkIndexVersion(t testing.TB, c core.IndexCodec, caps Capabilities) {
	for _, v := range []int{0, 1, 2, 3, 255, 65536, math.MaxInt32} {
		roundTripIndex(t, c, core.IndexData{Version: v}, indexHow(caps), fmt.Sprintf("version %d", v))
	}
}

func checkItemOrder(t testing.TB, c core.IndexCodec, caps Capabilities) {
	rng := rand.New(rand.NewPCG(3, 5))
	d := core.IndexData{Version: 1}
	for _, i := range rng.Perm(40) {
		v := randomVector(rng, 3)
		d.Items = append(d.Items, core.IndexItem{
			ID: fmt.Sprintf("id-%02d", i), Metadata: core.Metadata{"n": float64(i)}, Vector: v, Norm: norm(v),
		})
	}
	roundTripIndex(t, c, d, indexHow(caps), "40 items in shuffled order")
}

func checkItemFields(t testing.TB, c core.IndexCodec, caps Capabilities) {
	roundTripIndex(t, c, sampleIndex(), indexHow(caps), "sample index")
}

func checkUnicodeIndex(t testing.TB, c core.IndexCodec, caps Capabilities) {
	d := core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: trickyStrings}}
	for i, s := range trickyStrings {
		d.Items = append(d.Items, core.IndexItem{
			ID:           s,
			Metadata:     core.Metadata{s: s, "k" + s: float64(i)},
			Vector:       []float32{float32(i), 1},
			Norm:         norm([]float32{float32(i), 1}),
			MetadataFile: s + ".side",
		})
	}
	roundTripIndex(t, c, d, indexHow(caps), "tricky strings")
}

func checkLongVectors(t testing.TB, c core.IndexCodec, caps Capabilities) {
	rng := rand.New(rand.NewPCG(1536, 1))
	d := core.IndexData{Version: 1}
	for i := range 5 {
		v := randomVector(rng, 1536)
		d.Items = append(d.Items, core.IndexItem{ID: fmt.Sprintf("long-%d", i), Vector: v, Norm: norm(v)})
	}
	roundTripIndex(t, c, d, indexHow(caps), "5 items of 1536 dimensions")
}

func checkZeroValuesIndex(t testing.TB, c core.IndexCodec, caps Capabilities) {
	d := core.IndexData{Version: 1, Items: []core.IndexItem{{
		ID:       "zero",
		Metadata: core.Metadata{"s": "", "n": 0.0, "b": false},
		Vector:   []float32{0, 0, 0},
		Norm:     0,
	}}}
	roundTripIndex(t, c, d, indexHow(caps), `"" 0 false`)
}

func checkAbsentIndexFields(t testing.TB, c core.IndexCodec, caps Capabilities) {
	d := core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "no-side-car", Vector: []float32{1}, Norm: 1}}}
	b, err := encodeIndex(c, d)
	if err != nil {
		t.Errorf("serialize index: %v", err)
		return
	}
	got, err := decodeIndex(c, b)
	if err != nil {
		t.Errorf("deserialize index: %v", err)
		return
	}
	if len(got.Items) != 1 {
		t.Errorf("got %d items, want 1", len(got.Items))
		return
	}
	if got.Items[0].MetadataFile != "" {
		t.Errorf("metadataFile: got %q, want \"\" for an item without a side-car", got.Items[0].MetadataFile)
	}
	if got.MetadataConfig.Indexed != nil && caps.KeepsEmptyIndexed {
		t.Errorf("metadata_config.indexed: got %#v, want nil when written nil", got.MetadataConfig.Indexed)
	}
	if len(got.MetadataConfig.Indexed) != 0 {
		t.Errorf("metadata_config.indexed: got %q, want none", got.MetadataConfig.Indexed)
	}
}

func checkIndexedKeys(t testing.TB, c core.IndexCodec, caps Capabilities) {
	for _, tc := range []struct {
		label   string
		indexed []string
	}{
		{"nil indexed", nil},
		{"empty indexed", []string{}},
		{"two indexed keys", []string{"category", "year"}},
		{"indexed keys keep their order", []string{"z", "a", "m"}},
	} {
		roundTripIndex(t, c, core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: tc.indexed}}, indexHow(caps), tc.label)
	}
}

func checkEmptyItemParts(t testing.TB, c core.IndexCodec, caps Capabilities) {
	d := core.IndexData{Version: 1, Items: []core.IndexItem{
		{ID: "nil metadata and vector"},
		{ID: "empty metadata and vector", Metadata: core.Metadata{}, Vector: []float32{}},
		{ID: ""},
	}}
	roundTripIndex(t, c, d, indexHow(caps), "empty parts")
}

func checkExactNumbers(t testing.TB, c core.IndexCodec, caps Capabilities) {
	vector := []float32{
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		1e-7, 1e-6, 9.999999e-7, 1e20, 1e21, 3e38, 0.1, 1.0 / 3, 123456.79, 16777216, 16777217, -2.5,
	}
	d := core.IndexData{Version: 1, Items: []core.IndexItem{
		{ID: "extremes", Vector: vector, Norm: math.MaxFloat64},
		{ID: "small norm", Vector: []float32{0}, Norm: math.SmallestNonzeroFloat64},
		{ID: "thirds", Vector: []float32{1}, Norm: 1.0 / 3},
		{ID: "numbers", Vector: []float32{1}, Norm: 0.9999999999999999, Metadata: core.Metadata{
			"2^53":   9007199254740992.0,
			"-2^53":  -9007199254740992.0,
			"1e21":   1e21,
			"1e-7":   1e-7,
			"tenth":  0.1,
			"big":    1.7976931348623157e308,
			"tiny":   5e-324,
			"frac":   123456789.125,
			"neg":    -42.0,
			"e20":    1e20,
			"almost": 0.30000000000000004,
		}},
	}}
	roundTripIndex(t, c, d, indexHow(caps), "extreme numbers")
}

func checkGoNumbersIndex(t testing.TB, c core.IndexCodec, caps Capabilities) {
	d := core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "go numbers", Metadata: goNumbers()}}}
	roundTripIndex(t, c, d, indexHow(caps), "ints, uints and float32")
}

func goNumbers() core.Metadata {
	return core.Metadata{
		"int": 42, "int8": int8(-8), "int16": int16(1600), "int32": int32(-32), "int64": int64(1 << 53),
		"uint": uint(7), "uint8": uint8(255), "uint16": uint16(65535), "uint32": uint32(1 << 31), "uint64": uint64(1 << 40),
		"float32": float32(0.1),
	}
}

func nonScalars() core.Metadata {
	return core.Metadata{
		"null":   nil,
		"array":  []any{"a", 1.0, true, nil, []any{}},
		"object": map[string]any{"nested": map[string]any{"x": "y"}, "n": 2.5},
		"plain":  "still a string",
	}
}

func checkNonScalarIndex(t testing.TB, c core.IndexCodec, caps Capabilities) {
	if !caps.PreservesNonScalarMetadata {
		return
	}
	d := core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "non-scalar", Metadata: nonScalars()}}}
	roundTripIndex(t, c, d, indexHow(caps), "null, arrays and objects")
}

func checkNonFiniteIndex(t testing.TB, c core.IndexCodec, caps Capabilities) {
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, tc := range []struct {
			label string
			item  core.IndexItem
		}{
			{fmt.Sprintf("%v in a vector", x), core.IndexItem{ID: "v", Vector: []float32{1, float32(x)}, Norm: 1}},
			{fmt.Sprintf("%v as a norm", x), core.IndexItem{ID: "n", Vector: []float32{1}, Norm: x}},
			{fmt.Sprintf("%v in metadata", x), core.IndexItem{ID: "m", Metadata: core.Metadata{"x": x}}},
		} {
			d := core.IndexData{Version: 1, Items: []core.IndexItem{tc.item}}
			if !caps.RejectsNonFinite {
				roundTripIndex(t, c, d, indexHow(caps), tc.label)
				continue
			}
			_, err := encodeIndex(c, d)
			if !errors.Is(err, core.ErrInvalidArgument) {
				t.Errorf("%s: serialize index: got error %v, want one wrapping core.ErrInvalidArgument", tc.label, err)
			}
		}
	}
}
