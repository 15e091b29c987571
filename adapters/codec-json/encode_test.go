package codecjson_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/core"
)

// The expected texts below are what Node.js 20's JSON.stringify writes for
// the same values (checked with node when the tests were written).

func TestMetadataNumbersAreWrittenAsJSONStringifyWritesThem(t *testing.T) {
	tests := []valueText{
		{"zero", 0.0, "0"},
		{"negative zero as 0", math.Copysign(0, -1), "0"},
		{"integer without .0", 100.0, "100"},
		{"negative integer", -1.0, "-1"},
		{"shortest round-trip decimal", 0.1, "0.1"},
		{"shortest round-trip of a sum", 0.30000000000000004, "0.30000000000000004"},
		{"exponent below 1e-6", 1e-7, "1e-7"},
		{"exponent with fraction below 1e-6", 1.5e-7, "1.5e-7"},
		{"negative exponent form", -987.654e-10, "-9.87654e-8"},
		{"1e-6 is plain", 0.000001, "0.000001"},
		{"just above 1e-6 is plain", 0.0000012345, "0.0000012345"},
		{"1e-5 is plain", 1e-5, "0.00001"},
		{"1e20 is plain", 1e20, "100000000000000000000"},
		{"large plain integer", 123456789012345680000.0, "123456789012345680000"},
		{"exponent from 1e21", 1e21, "1e+21"},
		{"exponent with fraction from 1e21", 1.5e21, "1.5e+21"},
		{"three-digit exponent", 1e300, "1e+300"},
		{"smallest subnormal", 5e-324, "5e-324"},
		{"largest float64", math.MaxFloat64, "1.7976931348623157e+308"},
		{"2^53", 9007199254740992.0, "9007199254740992"},
		{"Go int as float64", 42, "42"},
		{"Go int64 beyond 2^53 rounds as float64", int64(1<<53 + 1), "9007199254740992"},
		{"Go float32 widened", float32(0.1), "0.10000000149011612"},
	}
	wantValueTexts(t, tests)
}

func TestVectorComponentsAreTheShortestFloat32Text(t *testing.T) {
	c := codecjson.New()
	tests := []struct {
		name string
		in   float32
		want string
	}{
		{"zero", 0, "0"},
		{"negative zero as 0", float32(math.Copysign(0, -1)), "0"},
		{"0.1 as float32 is 0.1", 0.1, "0.1"},
		{"exponent below 1e-6", 1e-7, "1e-7"},
		{"integer", 16777216, "16777216"},
		{"largest float32", math.MaxFloat32, "3.4028235e+38"},
		{"smallest float32 subnormal", math.SmallestNonzeroFloat32, "1e-45"},
		{"exponent from 1e21", 1e21, "1e+21"},
		{"plain just below 1e21", 9.999999e20, "999999900000000000000"},
		{"typical embedding component", -0.05123457, "-0.05123457"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := c.SerializeIndex(core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "a", Vector: []float32{tt.in}}}})
			if err != nil {
				t.Fatal(err)
			}
			want := `{"version":1,"metadata_config":{},"items":[{"id":"a","metadata":{},"vector":[` + tt.want + `],"norm":0}]}`
			if string(b) != want {
				t.Errorf("got  %s\nwant %s", b, want)
			}
		})
	}
}

func TestStringsAreEscapedAsJSONStringifyEscapesThem(t *testing.T) {
	tests := []valueText{
		{"quote and backslash escaped, slash kept", `q"b\s/`, `"q\"b\\s/"`},
		{"short escapes", "\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"other control characters as lowercase \\u00xx", "\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"DEL kept", "\x7f", "\"\x7f\""},
		{"HTML characters kept", "<>&", `"<>&"`},
		{"line and paragraph separators kept", "\u2028\u2029", "\"\u2028\u2029\""},
		{"non-ASCII kept as UTF-8", "é日本👩", `"é日本👩"`},
		{"invalid UTF-8 byte as U+FFFD", "a\xffb", "\"a\ufffdb\""},
		{"truncated UTF-8 sequence as U+FFFD", "\xe6\x97", "\"\ufffd\ufffd\""},
		{"UTF-8-encoded surrogate as U+FFFD per byte", "\xed\xa0\x80", "\"\ufffd\ufffd\ufffd\""},
	}
	wantValueTexts(t, tests)
}

func TestObjectKeysAreWrittenInJavaScriptObjectOrder(t *testing.T) {
	c := codecjson.New()
	m := core.Metadata{"b": 1, "a": 2, "10": 3, "2": 4, "01": 5, "-1": 6, "4294967295": 7, "4294967294": 8}
	b, err := c.SerializeMetadata(m)
	if err != nil {
		t.Fatal(err)
	}
	// Array indexes first by value, then every other key by bytes. (Node
	// lists the other keys in insertion order; a Go map has none.)
	want := `{"2":4,"10":3,"4294967294":8,"-1":6,"01":5,"4294967295":7,"a":2,"b":1}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestIndexAndCatalogShapes(t *testing.T) {
	c := codecjson.New()
	index := func(d core.IndexData) string {
		b, err := c.SerializeIndex(d)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	catalog := func(d core.DocumentCatalog) string {
		b, err := c.SerializeCatalog(d)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	metadata := func(m core.Metadata) string {
		b, err := c.SerializeMetadata(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name, got, want string
	}{
		{"fresh index: metadata_config {} and no items",
			index(core.IndexData{Version: 1}),
			`{"version":1,"metadata_config":{},"items":[]}`},
		{"empty indexed list kept",
			index(core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{}}}),
			`{"version":1,"metadata_config":{"indexed":[]},"items":[]}`},
		{"item keys in Vectra's order, metadataFile last",
			index(core.IndexData{Version: 2, MetadataConfig: core.MetadataConfig{Indexed: []string{"year", "category"}}, Items: []core.IndexItem{
				{ID: "a", Metadata: core.Metadata{"year": 2000, "category": "news"}, Vector: []float32{1, 0.5}, Norm: 1.118033988749895, MetadataFile: "x.json"},
				{ID: "b", Vector: []float32{}, Norm: 0},
			}}),
			`{"version":2,"metadata_config":{"indexed":["year","category"]},"items":[` +
				`{"id":"a","metadata":{"category":"news","year":2000},"vector":[1,0.5],"norm":1.118033988749895,"metadataFile":"x.json"},` +
				`{"id":"b","metadata":{},"vector":[],"norm":0}]}`},
		{"initial catalog has no uriToHash",
			catalog(core.DocumentCatalog{Version: 1, URIToID: map[string]string{}, IDToURI: map[string]string{}}),
			`{"version":1,"count":0,"uriToId":{},"idToUri":{}}`},
		{"nil maps written as {}",
			catalog(core.DocumentCatalog{Version: 1}),
			`{"version":1,"count":0,"uriToId":{},"idToUri":{}}`},
		{"catalog with uriToHash",
			catalog(core.DocumentCatalog{Version: 1, Count: 1, URIToID: map[string]string{"u": "i"}, IDToURI: map[string]string{"i": "u"}, URIToHash: map[string]string{"u": "h"}}),
			`{"version":1,"count":1,"uriToId":{"u":"i"},"idToUri":{"i":"u"},"uriToHash":{"u":"h"}}`},
		{"empty uriToHash kept",
			catalog(core.DocumentCatalog{Version: 1, URIToHash: map[string]string{}}),
			`{"version":1,"count":0,"uriToId":{},"idToUri":{},"uriToHash":{}}`},
		{"nil metadata as {}", metadata(nil), `{}`},
		{"nested values", metadata(core.Metadata{"a": []any{1, "x", nil, true, map[string]any{"z": 1, "y": []any{}}}}),
			`{"a":[1,"x",null,true,{"y":[],"z":1}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got  %s\nwant %s", tt.got, tt.want)
			}
		})
	}
}

type tagged struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

func TestOtherGoValuesAreWrittenAsEncodingJSONMarshalsThem(t *testing.T) {
	when := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []valueText{
		{"string slice", []string{"a", "<b>"}, `["a","<b>"]`},
		{"int map with sorted keys", map[string]int{"b": 2, "a": 1}, `{"a":1,"b":2}`},
		{"struct as an object, keys in object order", tagged{Name: "x", N: 3}, `{"n":3,"name":"x"}`},
		{"time as RFC 3339", when, `"2024-05-06T07:08:09Z"`},
		{"json.Number as a number", json.Number("12.50"), `12.5`},
	}
	wantValueTexts(t, tests)
}

func TestUnencodableValuesAreInvalidArguments(t *testing.T) {
	c := codecjson.New()
	tests := []struct {
		name string
		run  func() error
		want string // in the message
	}{
		{"NaN in a vector names the item and component", func() error {
			_, err := c.SerializeIndex(core.IndexData{Items: []core.IndexItem{{ID: "a"}, {ID: "b", Vector: []float32{0, float32(math.NaN())}}}})
			return err
		}, `items[1]: item "b" vector[1] is NaN`},
		{"+Inf norm", func() error {
			_, err := c.SerializeIndex(core.IndexData{Items: []core.IndexItem{{ID: "a", Norm: math.Inf(1)}}})
			return err
		}, `item "a" norm is +Inf`},
		{"-Inf in index metadata", func() error {
			_, err := c.SerializeIndex(core.IndexData{Items: []core.IndexItem{{ID: "a", Metadata: core.Metadata{"x": math.Inf(-1)}}}})
			return err
		}, `key "x": number -Inf`},
		{"NaN nested in metadata", func() error {
			_, err := c.SerializeMetadata(core.Metadata{"x": []any{1, math.NaN()}})
			return err
		}, `key "x": [1]: number NaN`},
		{"channel in metadata", func() error {
			_, err := c.SerializeMetadata(core.Metadata{"x": make(chan int)})
			return err
		}, `key "x": value of type chan int`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if !errors.Is(err, core.ErrInvalidArgument) {
				t.Fatalf("got %v, want an error wrapping core.ErrInvalidArgument", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "codecjson: serialize ") {
				t.Errorf("message %q does not start with \"codecjson: serialize \" or lacks %q", err, tt.want)
			}
		})
	}
}

// valueText is a metadata value and the JSON text the codec writes for it.
type valueText struct {
	name string
	in   any
	want string
}

// wantValueTexts checks, a subtest each, the text SerializeMetadata writes
// for each value.
func wantValueTexts(t *testing.T, tests []valueText) {
	t.Helper()
	c := codecjson.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := c.SerializeMetadata(core.Metadata{"k": tt.in})
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"k":` + tt.want + `}`; string(b) != want {
				t.Errorf("got %s, want %s", b, want)
			}
		})
	}
}
