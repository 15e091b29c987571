package codecjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/conformance/codectest"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// Every decoder: never panics; an error wraps core.ErrCorrupt; what it
// decodes re-encodes, decodes to the same value, and re-encodes to the
// same bytes. For index files, the compact fast path and the general path
// agree (the input re-indented takes the general path), and
// DeserializeIndexArena decodes as DeserializeIndex does, its arena
// keeping its promise.

func FuzzDeserializeIndex(f *testing.F) {
	f.Add(testkit.ReadFixture(f, "items-json", "index.json"))
	f.Add(testkit.ReadFixture(f, "docs-json", "index.json"))
	for _, s := range []string{
		`{"version":1,"metadata_config":{},"items":[]}`,
		`{"version":1,"metadata_config":{"indexed":["a"]},"items":[{"id":"a","metadata":{"a":1,"b":[null,{}]},"vector":[1,-0,null,1e-7,3.4028235e+38],"norm":1,"metadataFile":"x.json"}]}`,
		`{"items":[{"id":"a","vector":[1]},{"id":"b","metadata":{"x":[{"y":1},{"id":2}]},"vector":[2],"norm":0}]}`,
		`{"items":[{"id":"a","vector":[1],"vector":[2,3],"norm":1}]}`,
		`{"items":[{"vector":[1] ,"id":"a"}]}`,
		`{"items":null}`,
		`{"items":[{"id":"a","vector":[1,]}]}`,
		`{"items":[{"id":"a","vector":[1]},]}`,
		`{"items":[{"id":"a","vector":[1]}],}`,
		"{\"items\":[{\"id\":\"\xff\\ud800\"}]}",
		`{"items":[{"id":"a","vector":[1,2]},{"id":"b","vector":[3],"vector":[4,5]},{"id":"c","vector":[6,7,8]}]}`,
		`{"items":[{"id":"a"},{"id":"b","vector":[]},{"id":"c","vector":null}]}`,
	} {
		f.Add([]byte(s))
	}
	c := codecjson.New()
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := c.DeserializeIndex(b)
		da, arena, errA := c.DeserializeIndexArena(b)
		if (err == nil) != (errA == nil) {
			t.Fatalf("DeserializeIndex error %v, DeserializeIndexArena error %v", err, errA)
		}
		if !reflect.DeepEqual(d, da) {
			t.Fatalf("DeserializeIndexArena = %#v, DeserializeIndex = %#v", da, d)
		}
		if errA == nil {
			if err := codectest.CheckArena(da.Items, arena); err != nil {
				t.Fatal(err)
			}
		}
		if json.Valid(b) {
			var indented bytes.Buffer
			if json.Indent(&indented, b, "", "\t") == nil {
				d2, err2 := c.DeserializeIndex(indented.Bytes())
				if (err == nil) != (err2 == nil) {
					t.Fatalf("compact and indented forms disagree: %v vs %v", err, err2)
				}
				if err == nil && !reflect.DeepEqual(d, d2) {
					t.Fatalf("compact and indented forms decode differently:\n%#v\n%#v", d, d2)
				}
			}
		}
		if err != nil {
			if !errors.Is(err, core.ErrCorrupt) {
				t.Fatalf("error %v does not wrap core.ErrCorrupt", err)
			}
			return
		}
		out, err := c.SerializeIndex(d)
		if err != nil {
			t.Fatalf("decoded index does not encode: %v", err)
		}
		again, err := c.DeserializeIndex(out)
		if err != nil {
			t.Fatalf("re-encoded index does not decode: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(normalIndex(d), normalIndex(again)) {
			t.Fatalf("round trip changed the index:\n%#v\n%#v", d, again)
		}
		if out2, _ := c.SerializeIndex(again); !bytes.Equal(out, out2) {
			t.Fatalf("re-encoding is not stable:\n%s\n%s", out, out2)
		}
	})
}

func FuzzDeserializeCatalog(f *testing.F) {
	f.Add(testkit.ReadFixture(f, "docs-json", "catalog.json"))
	for _, s := range []string{
		`{"version":1,"count":0,"uriToId":{},"idToUri":{}}`,
		`{"version":1,"count":1,"uriToId":{"a":"b"},"idToUri":{"b":"a"},"uriToHash":{}}`,
		`{"uriToHash":null,"extra":[1,{"a":2}]}`,
		`{"count":1e3,"uriToId":{"é\u2028":"\n"}}`,
	} {
		f.Add([]byte(s))
	}
	c := codecjson.New()
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := c.DeserializeCatalog(b)
		if err != nil {
			if !errors.Is(err, core.ErrCorrupt) {
				t.Fatalf("error %v does not wrap core.ErrCorrupt", err)
			}
			return
		}
		out, err := c.SerializeCatalog(d)
		if err != nil {
			t.Fatalf("decoded catalog does not encode: %v", err)
		}
		again, err := c.DeserializeCatalog(out)
		if err != nil {
			t.Fatalf("re-encoded catalog does not decode: %v\n%s", err, out)
		}
		if (d.URIToHash == nil) != (again.URIToHash == nil) || !reflect.DeepEqual(normalCatalog(d), normalCatalog(again)) {
			t.Fatalf("round trip changed the catalog:\n%#v\n%#v", d, again)
		}
		if out2, _ := c.SerializeCatalog(again); !bytes.Equal(out, out2) {
			t.Fatalf("re-encoding is not stable:\n%s\n%s", out, out2)
		}
	})
}

func FuzzDeserializeMetadata(f *testing.F) {
	for _, name := range jsonFiles(f, "docs-json") {
		if name != "index.json" && name != "catalog.json" {
			f.Add(testkit.ReadFixture(f, "docs-json", name))
		}
	}
	f.Add(testkit.ReadFixture(f, "items-json", "00000001-0000-4000-8000-000000000001.json"))
	for _, s := range []string{
		`{}`, `null`, `{"a":[1,[2,[3]]],"b":{"c":{"d":null}},"e":-0,"f":1e-7,"g":"\u0000"}`,
		`{"a":1,"a":2}`, `{"":""}`, `{"1":1,"0":0,"b":2,"a":1}`,
	} {
		f.Add([]byte(s))
	}
	c := codecjson.New()
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := c.DeserializeMetadata(b)
		if err != nil {
			if !errors.Is(err, core.ErrCorrupt) {
				t.Fatalf("error %v does not wrap core.ErrCorrupt", err)
			}
			return
		}
		out, err := c.SerializeMetadata(m)
		if err != nil {
			t.Fatalf("decoded metadata does not encode: %v", err)
		}
		again, err := c.DeserializeMetadata(out)
		if err != nil {
			t.Fatalf("re-encoded metadata does not decode: %v\n%s", err, out)
		}
		if len(m) != 0 || len(again) != 0 {
			if !reflect.DeepEqual(m, again) {
				t.Fatalf("round trip changed the metadata:\n%#v\n%#v", m, again)
			}
		}
		if out2, _ := c.SerializeMetadata(again); !bytes.Equal(out, out2) {
			t.Fatalf("re-encoding is not stable:\n%s\n%s", out, out2)
		}
	})
}

// normalIndex makes nil and empty items, metadata and vectors alike: the
// file form does not tell them apart.
func normalIndex(d core.IndexData) core.IndexData {
	if d.Items == nil {
		d.Items = []core.IndexItem{}
	}
	items := make([]core.IndexItem, len(d.Items))
	for i, it := range d.Items {
		if it.Metadata == nil {
			it.Metadata = core.Metadata{}
		}
		if it.Vector == nil {
			it.Vector = []float32{}
		}
		items[i] = it
	}
	d.Items = items
	return d
}

// normalCatalog makes nil and empty uriToId and idToUri maps alike; the
// file form writes both as {}.
func normalCatalog(c core.DocumentCatalog) core.DocumentCatalog {
	if c.URIToID == nil {
		c.URIToID = map[string]string{}
	}
	if c.IDToURI == nil {
		c.IDToURI = map[string]string{}
	}
	return c
}
