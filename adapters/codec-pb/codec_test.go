package codecpb_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

// Ported from Vectra's src/codecs/ProtobufCodec.spec.ts, plus the
// rules of Vectra's .pb layout that Folio keeps.

func TestExtensionIsPB(t *testing.T) {
	if got := codecpb.New().Extension(); got != ".pb" {
		t.Errorf("Extension() = %q, want .pb", got)
	}
}

func roundTripIndex(t *testing.T, d core.IndexData) core.IndexData {
	t.Helper()
	c := codecpb.New()
	b, err := c.SerializeIndex(d)
	if err != nil {
		t.Fatalf("SerializeIndex: %v", err)
	}
	got, err := c.DeserializeIndex(b)
	if err != nil {
		t.Fatalf("DeserializeIndex: %v", err)
	}
	return got
}

func TestIndexRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   core.IndexData
		want core.IndexData
	}{
		{
			name: "items, metadata and side-car names survive; vectors become float32",
			in: core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{"category"}}, Items: []core.IndexItem{
				{ID: "a", Metadata: core.Metadata{"category": "news", "year": 2020}, Vector: []float32{0.1, 0.2, 0.3}, Norm: 0.37416573867739417, MetadataFile: "a-side.pb"},
				{ID: "b", Metadata: core.Metadata{}, Vector: []float32{1, -0, 3.4028235e38}, Norm: 1},
			}},
			want: core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{"category"}}, Items: []core.IndexItem{
				{ID: "a", Metadata: core.Metadata{"category": "news", "year": float64(2020)}, Vector: []float32{0.1, 0.2, 0.3}, Norm: 0.37416573867739417, MetadataFile: "a-side.pb"},
				{ID: "b", Metadata: core.Metadata{}, Vector: []float32{1, -0, 3.4028235e38}, Norm: 1},
			}},
		},
		{
			name: "empty items",
			in:   core.IndexData{Version: 1},
			want: core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{}}, Items: []core.IndexItem{}},
		},
		{
			name: "boolean metadata round-trips, false included",
			in:   core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "x", Metadata: core.Metadata{"t": true, "f": false}, Vector: []float32{1}, Norm: 1}}},
			want: core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{}}, Items: []core.IndexItem{{ID: "x", Metadata: core.Metadata{"t": true, "f": false}, Vector: []float32{1}, Norm: 1}}},
		},
		{
			name: "string metadata round-trips, empty and unicode included",
			in:   core.IndexData{Version: 2, Items: []core.IndexItem{{ID: "ü", Metadata: core.Metadata{"s": "", "u": "日本 \u2028 \"q\" \\ 🎉"}, Vector: []float32{1}, Norm: 1}}},
			want: core.IndexData{Version: 2, MetadataConfig: core.MetadataConfig{Indexed: []string{}}, Items: []core.IndexItem{{ID: "ü", Metadata: core.Metadata{"s": "", "u": "日本 \u2028 \"q\" \\ 🎉"}, Vector: []float32{1}, Norm: 1}}},
		},
		{
			name: "zero number and any Go number read back as float64",
			in:   core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "n", Metadata: core.Metadata{"z": 0, "i": int64(-7), "u": uint8(200), "f": float32(0.5)}, Vector: []float32{1}, Norm: 1}}},
			want: core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{}}, Items: []core.IndexItem{{ID: "n", Metadata: core.Metadata{"z": float64(0), "i": float64(-7), "u": float64(200), "f": 0.5}, Vector: []float32{1}, Norm: 1}}},
		},
		{
			name: "nil metadata reads back empty, never nil (Vectra writes metadata {})",
			in:   core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "m", Vector: []float32{1}, Norm: 1}}},
			want: core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{}}, Items: []core.IndexItem{{ID: "m", Metadata: core.Metadata{}, Vector: []float32{1}, Norm: 1}}},
		},
		{
			name: "a nil indexed list reads back empty and non-nil (Vectra reads indexed ?? [])",
			in:   core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: nil}},
			want: core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{}}, Items: []core.IndexItem{}},
		},
		{
			name: "non-scalar metadata becomes the string JavaScript's String() gives",
			in: core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "o", Vector: []float32{1}, Norm: 1, Metadata: core.Metadata{
				"null": nil, "arr": []any{"a", 1.5, nil, []any{true, 2}}, "obj": map[string]any{"k": "v"}, "strs": []string{"x", "y"},
			}}}},
			want: core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{}}, Items: []core.IndexItem{{ID: "o", Vector: []float32{1}, Norm: 1, Metadata: core.Metadata{
				"null": "null", "arr": "a,1.5,,true,2", "obj": "[object Object]", "strs": "x,y",
			}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := roundTripIndex(t, tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// Vectors are stored as float32: a component given with more precision
// comes back as the nearest float32, and the norm (a double)
// is kept exactly as given.
func TestVectorsAreFloat32OnDisk(t *testing.T) {
	c := codecpb.New()
	v := []float64{0.1, 1.0 / 3, math.Pi}
	in := core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "p", Norm: 1.0000000000000002}}}
	for _, x := range v {
		in.Items[0].Vector = append(in.Items[0].Vector, float32(x))
	}
	b, err := c.SerializeIndex(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.DeserializeIndex(b)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range v {
		if g := got.Items[0].Vector[i]; math.Abs(float64(g)-x) > 1e-7 || g != float32(x) {
			t.Errorf("vector[%d] = %v, want float32(%v)", i, g, x)
		}
	}
	if got.Items[0].Norm != 1.0000000000000002 {
		t.Errorf("norm = %v, want exact", got.Items[0].Norm)
	}
}

func TestDecodedVectorsDoNotShareCapacity(t *testing.T) {
	got := roundTripIndex(t, core.IndexData{Version: 1, Items: []core.IndexItem{
		{ID: "a", Vector: []float32{1, 2}, Norm: 1}, {ID: "b", Vector: []float32{3, 4}, Norm: 1},
	}})
	_ = append(got.Items[0].Vector, 99)
	if got.Items[1].Vector[0] != 3 {
		t.Errorf("appending to one item's vector overwrote the next: %v", got.Items[1].Vector)
	}
}

func TestCatalogRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   core.DocumentCatalog
		want core.DocumentCatalog
	}{
		{
			name: "maps and counts survive",
			in: core.DocumentCatalog{Version: 1, Count: 2,
				URIToID: map[string]string{"a.md": "1", "b.md": "2"}, IDToURI: map[string]string{"1": "a.md", "2": "b.md"},
				URIToHash: map[string]string{"a.md": "aa", "b.md": "bb"}},
			want: core.DocumentCatalog{Version: 1, Count: 2,
				URIToID: map[string]string{"a.md": "1", "b.md": "2"}, IDToURI: map[string]string{"1": "a.md", "2": "b.md"},
				URIToHash: map[string]string{"a.md": "aa", "b.md": "bb"}},
		},
		{
			name: "empty catalog reads back with empty maps and no uriToHash",
			in:   core.DocumentCatalog{Version: 1},
			want: core.DocumentCatalog{Version: 1, URIToID: map[string]string{}, IDToURI: map[string]string{}},
		},
		{
			name: "absent uriToHash decodes as nil",
			in:   core.DocumentCatalog{Version: 1, Count: 1, URIToID: map[string]string{"u": "i"}, IDToURI: map[string]string{"i": "u"}},
			want: core.DocumentCatalog{Version: 1, Count: 1, URIToID: map[string]string{"u": "i"}, IDToURI: map[string]string{"i": "u"}},
		},
		{
			name: "an empty uriToHash is not written, so it reads back nil",
			in:   core.DocumentCatalog{Version: 1, URIToID: map[string]string{}, IDToURI: map[string]string{}, URIToHash: map[string]string{}},
			want: core.DocumentCatalog{Version: 1, URIToID: map[string]string{}, IDToURI: map[string]string{}},
		},
		{
			name: "empty keys and values survive",
			in:   core.DocumentCatalog{Version: 1, URIToID: map[string]string{"": ""}, IDToURI: map[string]string{"x": ""}, URIToHash: map[string]string{"": "h"}},
			want: core.DocumentCatalog{Version: 1, URIToID: map[string]string{"": ""}, IDToURI: map[string]string{"x": ""}, URIToHash: map[string]string{"": "h"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := codecpb.New()
			b, err := c.SerializeCatalog(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.DeserializeCatalog(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// Vectra writes side-car and document metadata as JSON text in both codecs.
func TestMetadataIsJSONText(t *testing.T) {
	tests := []struct {
		name string
		in   core.Metadata
		want string
	}{
		{"string, number and boolean", core.Metadata{"s": "x", "n": 2020, "b": false}, `{"b":false,"n":2020,"s":"x"}`},
		{"empty metadata", core.Metadata{}, `{}`},
		{"nil metadata is an empty object", nil, `{}`},
		{"numbers use JavaScript's format", core.Metadata{"a": 1e21, "b": 1e-7, "c": 0.1, "d": math.Copysign(0, -1), "e": 123456789012345680000.0, "f": 1.5e-6, "g": float32(0.1)},
			`{"a":1e+21,"b":1e-7,"c":0.1,"d":0,"e":123456789012345680000,"f":0.0000015,"g":0.10000000149011612}`},
		{"only quotes, backslashes and control characters are escaped", core.Metadata{"k": "<&> \u2028 \"q\" \\ \n\t\b\f\r \x01\x1f\x7f é 🎉"},
			`{"k":"<&> ` + "\u2028" + ` \"q\" \\ \n\t\b\f\r \u0001\u001f` + "\x7f" + ` é 🎉"}`},
		{"null, arrays and objects are kept", core.Metadata{"n": nil, "a": []any{1, "x", nil, []any{}}, "o": map[string]any{"z": 1, "a": true}},
			`{"a":[1,"x",null,[]],"n":null,"o":{"a":true,"z":1}}`},
		{"other Go slices and maps are arrays and objects", core.Metadata{"s": []string{"a"}, "f": []float64{1.5}, "m": map[string]int{"k": 1}},
			`{"f":[1.5],"m":{"k":1},"s":["a"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := codecpb.New()
			b, err := c.SerializeMetadata(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
			back, err := c.DeserializeMetadata(b)
			if err != nil {
				t.Fatalf("DeserializeMetadata(%s): %v", b, err)
			}
			again, err := c.SerializeMetadata(back)
			if err != nil || string(again) != tt.want {
				t.Errorf("decode then encode = %s, %v; want %s", again, err, tt.want)
			}
		})
	}
}

func TestDeserializeMetadataWantsAnObject(t *testing.T) {
	for _, in := range []string{``, `null`, `[]`, `"x"`, `1`, `{"a":1`, `{"a":1}x`, `{"a":1e400}`} {
		if _, err := codecpb.New().DeserializeMetadata([]byte(in)); !errors.Is(err, core.ErrCorrupt) {
			t.Errorf("DeserializeMetadata(%q) error = %v, want ErrCorrupt", in, err)
		}
	}
}

// The writer rejects what it cannot write faithfully.
func TestSerializeRejectsUnrepresentableValues(t *testing.T) {
	c := codecpb.New()
	item := func(mod func(*core.IndexItem)) core.IndexData {
		it := core.IndexItem{ID: "i", Vector: []float32{1}, Norm: 1, Metadata: core.Metadata{}}
		mod(&it)
		return core.IndexData{Version: 1, Items: []core.IndexItem{it}}
	}
	nan32 := float32(math.NaN())
	inf32 := float32(math.Inf(1))
	indexes := map[string]core.IndexData{
		"NaN in a vector":              item(func(it *core.IndexItem) { it.Vector = []float32{1, nan32} }),
		"+Inf in a vector":             item(func(it *core.IndexItem) { it.Vector = []float32{inf32} }),
		"-Inf in a vector":             item(func(it *core.IndexItem) { it.Vector = []float32{-inf32} }),
		"NaN in a long vector":         item(func(it *core.IndexItem) { it.Vector = make([]float32, 40); it.Vector[17] = nan32 }),
		"+Inf last in a long vector":   item(func(it *core.IndexItem) { it.Vector = make([]float32, 40); it.Vector[39] = inf32 }),
		"NaN norm":                     item(func(it *core.IndexItem) { it.Norm = math.NaN() }),
		"infinite norm":                item(func(it *core.IndexItem) { it.Norm = math.Inf(-1) }),
		"NaN metadata number":          item(func(it *core.IndexItem) { it.Metadata["n"] = math.NaN() }),
		"infinite float32 metadata":    item(func(it *core.IndexItem) { it.Metadata["n"] = float32(math.Inf(1)) }),
		"invalid UTF-8 id":             item(func(it *core.IndexItem) { it.ID = "\xff" }),
		"invalid UTF-8 metadata key":   item(func(it *core.IndexItem) { it.Metadata["\xfe"] = 1 }),
		"invalid UTF-8 metadata value": item(func(it *core.IndexItem) { it.Metadata["k"] = "a\xc3" }),
		"invalid UTF-8 metadata file":  item(func(it *core.IndexItem) { it.MetadataFile = "\x80.pb" }),
		"negative version":             {Version: -1},
		"version above uint32":         {Version: math.MaxUint32 + 1},
		"invalid UTF-8 indexed key":    {Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{"\xff"}}},
	}
	for name, d := range indexes {
		t.Run("index: "+name, func(t *testing.T) {
			_, err := c.SerializeIndex(d)
			if !errors.Is(err, core.ErrInvalidArgument) {
				t.Errorf("SerializeIndex error = %v, want ErrInvalidArgument", err)
			}
			// The error names the first component that is not finite.
			if len(d.Items) == 0 {
				return
			}
			for j, v := range d.Items[0].Vector {
				if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
					if want := fmt.Sprintf("vector[%d]", j); err == nil || !strings.Contains(err.Error(), want) {
						t.Errorf("SerializeIndex error = %v, want it to name %s", err, want)
					}
					break
				}
			}
		})
	}
	catalogs := map[string]core.DocumentCatalog{
		"negative count":        {Version: 1, Count: -1},
		"version above uint32":  {Version: math.MaxUint32 + 1},
		"invalid UTF-8 uri":     {Version: 1, URIToID: map[string]string{"\xff": "i"}},
		"invalid UTF-8 hash":    {Version: 1, URIToHash: map[string]string{"u": "\xff"}},
		"invalid UTF-8 id->uri": {Version: 1, IDToURI: map[string]string{"i": "\xff"}},
	}
	for name, cat := range catalogs {
		t.Run("catalog: "+name, func(t *testing.T) {
			if _, err := c.SerializeCatalog(cat); !errors.Is(err, core.ErrInvalidArgument) {
				t.Errorf("SerializeCatalog error = %v, want ErrInvalidArgument", err)
			}
		})
	}
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	metadata := map[string]core.Metadata{
		"NaN number":      {"n": math.NaN()},
		"infinite nested": {"a": []any{math.Inf(1)}},
		"a cycle":         {"c": cyclic},
	}
	for name, m := range metadata {
		t.Run("metadata: "+name, func(t *testing.T) {
			if _, err := c.SerializeMetadata(m); !errors.Is(err, core.ErrInvalidArgument) {
				t.Errorf("SerializeMetadata error = %v, want ErrInvalidArgument", err)
			}
		})
	}
	// A side-car is JSON text: invalid UTF-8 is written as U+FFFD, the
	// character Node.js reads in its place, as the JSON codec writes it.
	raw, err := c.SerializeMetadata(core.Metadata{"\xff": []any{"a\xffb"}})
	if err != nil || string(raw) != "{\"\ufffd\":[\"a\ufffdb\"]}" {
		t.Errorf("metadata with invalid UTF-8: %q, %v", raw, err)
	}
}

// A 1536-dimension vector costs 4 bytes a component plus a few bytes of
// framing, far less than its JSON text.
func TestLargeVectorIsCompact(t *testing.T) {
	v := make([]float32, 1536)
	for i := range v {
		v[i] = float32(math.Sin(float64(i))) / 40
	}
	b, err := codecpb.New().SerializeIndex(core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "big", Vector: v, Norm: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 4*1536+32 {
		t.Errorf("encoded %d bytes, want at most %d", len(b), 4*1536+32)
	}
}
