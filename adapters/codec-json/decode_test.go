package codecjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

func TestDeserializeIndex(t *testing.T) {
	c := codecjson.New()
	tests := []struct {
		name string
		in   string
		want core.IndexData
	}{
		{"metadata_config {} reads a nil indexed list",
			`{"version":1,"metadata_config":{},"items":[]}`,
			core.IndexData{Version: 1, Items: []core.IndexItem{}}},
		{"an empty indexed list stays non-nil",
			`{"version":1,"metadata_config":{"indexed":[]},"items":[]}`,
			core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{}}, Items: []core.IndexItem{}}},
		{"null inside a vector reads as 0",
			`{"version":1,"metadata_config":{},"items":[{"id":"a","metadata":{},"vector":[1,null,-2],"norm":1}]}`,
			core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "a", Metadata: core.Metadata{}, Vector: []float32{1, 0, -2}, Norm: 1}}}},
		{"Vectra's float64 text reads as the nearest float32",
			`{"version":1,"metadata_config":{},"items":[{"id":"a","metadata":{},"vector":[-0.8489434821237285,0.3139116596690066],"norm":0.9999999999999999}]}`,
			core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "a", Metadata: core.Metadata{}, Vector: []float32{-0.8489434821237285, 0.3139116596690066}, Norm: 0.9999999999999999}}}},
		{"null fields read as zero values",
			`{"version":null,"metadata_config":null,"items":[{"id":null,"metadata":null,"vector":null,"norm":null,"metadataFile":null}]}`,
			core.IndexData{Items: []core.IndexItem{{}}}},
		{"null items read as none",
			`{"version":1,"items":null}`,
			core.IndexData{Version: 1}},
		{"missing keys read as zero values",
			`{}`,
			core.IndexData{}},
		{"unknown keys are skipped",
			`{"future":{"x":[1]},"version":3,"metadata_config":{"indexed":["a"],"other":1},"items":[{"id":"a","extra":[{"id":1}],"vector":[1]}]}`,
			core.IndexData{Version: 3, MetadataConfig: core.MetadataConfig{Indexed: []string{"a"}}, Items: []core.IndexItem{{ID: "a", Vector: []float32{1}}}}},
		{"any key order",
			`{"items":[{"norm":2,"vector":[3,4],"metadataFile":"m.json","metadata":{"k":"v"},"id":"a"}],"version":1}`,
			core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "a", Metadata: core.Metadata{"k": "v"}, Vector: []float32{3, 4}, Norm: 2, MetadataFile: "m.json"}}}},
		{"white space anywhere",
			" {\n \"version\" : 1 ,\"items\" : [ { \"id\" : \"a\" , \"vector\" : [ 1 , null , 2 ] , \"norm\" : 1 } , {\"id\":\"b\",\"vector\":[ ]} ] } \n",
			core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "a", Vector: []float32{1, 0, 2}, Norm: 1}, {ID: "b", Vector: []float32{}}}}},
		{"a repeated key: the last wins",
			`{"version":1,"version":2,"items":[{"id":"a","vector":[1],"vector":[2],"id":"b"}]}`,
			core.IndexData{Version: 2, Items: []core.IndexItem{{ID: "b", Vector: []float32{2}}}}},
		{"item separators inside metadata are not item boundaries",
			`{"version":1,"items":[{"id":"a","metadata":{"x":[{"y":1},{"id":2}]},"vector":[1]},{"id":"b","vector":[2]}]}`,
			core.IndexData{Version: 1, Items: []core.IndexItem{
				{ID: "a", Metadata: core.Metadata{"x": []any{map[string]any{"y": 1.0}, map[string]any{"id": 2.0}}}, Vector: []float32{1}},
				{ID: "b", Vector: []float32{2}}}}},
		{"metadata values as JSON.parse gives them",
			`{"items":[{"id":"a","metadata":{"s":"x","n":-1.5e3,"t":true,"f":false,"z":null,"a":[1,"b"],"o":{"p":{}}}}]}`,
			core.IndexData{Items: []core.IndexItem{{ID: "a", Metadata: core.Metadata{"s": "x", "n": -1500.0, "t": true, "f": false, "z": nil, "a": []any{1.0, "b"}, "o": map[string]any{"p": map[string]any{}}}}}}},
		{"invalid UTF-8 and lone surrogates read as U+FFFD",
			"{\"items\":[{\"id\":\"a\xffb\",\"metadata\":{\"k\":\"\\ud800x\"}}]}",
			core.IndexData{Items: []core.IndexItem{{ID: "a\ufffdb", Metadata: core.Metadata{"k": "\ufffdx"}}}}},
		{"escapes are decoded",
			`{"items":[{"id":"\u00e9\n\"\\\/\ud83d\ude80"}]}`,
			core.IndexData{Items: []core.IndexItem{{ID: "é\n\"\\/🚀"}}}},
		{"an integer version written as a float",
			`{"version":2.0e0}`,
			core.IndexData{Version: 2}},
		{"tiny vector components round to 0",
			`{"items":[{"id":"a","vector":[1e-50,-1e-50]}]}`,
			core.IndexData{Items: []core.IndexItem{{ID: "a", Vector: []float32{0, 0}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.DeserializeIndex([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestDeserializeRejectsCorruptInput(t *testing.T) {
	c := codecjson.New()
	index := func(s string) error { _, err := c.DeserializeIndex([]byte(s)); return err }
	catalog := func(s string) error { _, err := c.DeserializeCatalog([]byte(s)); return err }
	metadata := func(s string) error { _, err := c.DeserializeMetadata([]byte(s)); return err }
	tests := []struct {
		name   string
		decode func(string) error
		in     string
		want   string // in the message
	}{
		{"empty index file", index, ``, "deserialize index"},
		{"index that is not an object", index, `[]`, "want an object"},
		{"index that is null", index, `null`, "want an object"},
		{"trailing data after the index", index, `{"items":[]} {}`, "after the value"},
		{"trailing comma in a vector", index, `{"items":[{"id":"a","vector":[1,]}]}`, `items[0]`},
		{"leading zero in a vector", index, `{"items":[{"id":"a","vector":[01]}]}`, `items[0]`},
		{"string in a vector", index, `{"items":[{"id":"a","vector":[1,"2"]}]}`, `items[0]`},
		{"NaN text in a vector", index, `{"items":[{"id":"a","vector":[NaN]}]}`, `items[0]`},
		{"vector beyond float32 range", index, `{"items":[{"id":"a","vector":[1e39]}]}`, `items[0]: "vector": [0]: number 1e39 is beyond float32 range`},
		{"norm beyond float64 range", index, `{"items":[{"id":"a","norm":1e999}]}`, `"norm": number 1e999 out of range`},
		{"vector that is an object", index, `{"items":[{"id":"a","vector":{}}]}`, `items[0]`},
		{"item that is not an object", index, `{"items":[1]}`, `items[0]: got number, want an object`},
		{"id that is a number", index, `{"items":[{"id":1}]}`, `"id": got number, want a string`},
		{"fractional version", index, `{"version":1.5}`, `"version": number 1.5 is not an integer`},
		{"indexed entry that is not a string", index, `{"metadata_config":{"indexed":[1]}}`, `want a string`},
		{"truncated index", index, `{"version":1,"items":[{"id":"a","vector":[1,2`, "deserialize index"},
		{"catalog map value that is not a string", catalog, `{"uriToId":{"a":1}}`, `"uriToId": "a": got number, want a string`},
		{"negative count is accepted but fractional is not", catalog, `{"count":0.5}`, `"count"`},
		{"catalog that is not an object", catalog, `"x"`, "want an object"},
		{"metadata that is an array", metadata, `[1]`, `got '['`},
		{"metadata with trailing data", metadata, `{}x`, "after the value"},
		{"metadata number beyond float64 range", metadata, `{"a":-1e400}`, "out of range"},
		{"metadata nested too deep", metadata, `{"a":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, "deserialize metadata"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.decode(tt.in)
			if !errors.Is(err, core.ErrCorrupt) {
				t.Fatalf("got %v, want an error wrapping core.ErrCorrupt", err)
			}
			if !strings.HasPrefix(err.Error(), "codecjson: deserialize ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("message %q does not start with \"codecjson: deserialize \" or lacks %q", err, tt.want)
			}
		})
	}
}

func TestDeserializeCatalogAndMetadata(t *testing.T) {
	c := codecjson.New()
	t.Run("catalog without uriToHash reads a nil map", func(t *testing.T) {
		got, err := c.DeserializeCatalog([]byte(`{"version":1,"count":0,"uriToId":{},"idToUri":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		want := core.DocumentCatalog{Version: 1, URIToID: map[string]string{}, IDToURI: map[string]string{}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %#v, want %#v", got, want)
		}
	})
	t.Run("catalog with an empty uriToHash reads an empty map", func(t *testing.T) {
		got, err := c.DeserializeCatalog([]byte(`{"uriToHash":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		if got.URIToHash == nil || len(got.URIToHash) != 0 {
			t.Errorf("URIToHash = %#v, want an empty non-nil map", got.URIToHash)
		}
	})
	t.Run("metadata null reads nil, as JSON.stringify(null) wrote it", func(t *testing.T) {
		got, err := c.DeserializeMetadata([]byte(`null`))
		if err != nil || got != nil {
			t.Errorf("got %#v, %v; want nil, nil", got, err)
		}
	})
	t.Run("metadata {} reads an empty non-nil map", func(t *testing.T) {
		got, err := c.DeserializeMetadata([]byte(` {} `))
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("got %#v, %v; want an empty map", got, err)
		}
	})
}

// Compact index files are cut into items by their `},{"id":` separators
// and decoded in parallel; anything else is walked by the decoder. Both
// ways must give the same result, for every fixture and for indexes big
// enough to be split across goroutines.
func TestCompactAndIndentedIndexesDecodeAlike(t *testing.T) {
	c := codecjson.New()
	inputs := map[string][]byte{
		"items-json": testkit.ReadFixture(t, "items-json", "index.json"),
		"docs-json":  testkit.ReadFixture(t, "docs-json", "index.json"),
	}
	big := core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{"n"}}}
	for i := range 4000 {
		v := make([]float32, 64)
		for j := range v {
			v[j] = float32(i*64+j) / 7
		}
		big.Items = append(big.Items, core.IndexItem{ID: string(rune('a' + i%26)), Metadata: core.Metadata{"n": float64(i)}, Vector: v, Norm: float64(i)})
	}
	b, err := c.SerializeIndex(big)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2<<20 {
		t.Fatalf("big index is %d bytes, want over 2 MiB so that work is split", len(b))
	}
	inputs["4000 items of 64 dimensions"] = b
	for name, compact := range inputs {
		t.Run(name, func(t *testing.T) {
			var indented bytes.Buffer
			if err := json.Indent(&indented, compact, "", "  "); err != nil {
				t.Fatal(err)
			}
			a, err := c.DeserializeIndex(compact)
			if err != nil {
				t.Fatal(err)
			}
			b, err := c.DeserializeIndex(indented.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("compact and indented forms decode differently")
			}
			if name == "4000 items of 64 dimensions" && !reflect.DeepEqual(a, big) {
				t.Errorf("decoded index differs from the one encoded")
			}
		})
	}
}

func TestCorruptItemInLargeIndexIsReportedByPosition(t *testing.T) {
	c := codecjson.New()
	d := core.IndexData{Version: 1}
	for range 2000 {
		d.Items = append(d.Items, core.IndexItem{ID: "x", Vector: make([]float32, 256)})
	}
	b, err := c.SerializeIndex(d)
	if err != nil {
		t.Fatal(err)
	}
	// Break the vector of item 1500, in the second half of the work.
	at := 0
	for range 1501 {
		at += bytes.Index(b[at:], []byte(`"vector":[`)) + 1
	}
	b[at+len(`"vector":[`)] = 'x'
	_, err = c.DeserializeIndex(b)
	if !errors.Is(err, core.ErrCorrupt) || !strings.Contains(err.Error(), "items[1500]") {
		t.Errorf("got %v, want ErrCorrupt naming items[1500]", err)
	}
}
