package codecjson_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/conformance/codectest"
	"github.com/foliovec/folio/conformance/testkit"
)

// Every decoder keeps codectest's rules for any bytes (CheckIndexBytes and
// the others). For index files, the compact fast path and the general path
// also agree: the input re-indented takes the general path.

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
		d, ok, err := codectest.CheckIndexBytes(c, b)
		if err != nil {
			t.Fatal(err)
		}
		if json.Valid(b) {
			var indented bytes.Buffer
			if json.Indent(&indented, b, "", "\t") == nil {
				d2, err2 := c.DeserializeIndex(indented.Bytes())
				if ok != (err2 == nil) {
					t.Fatalf("compact and indented forms disagree: decoded %v vs %v", ok, err2)
				}
				if ok && !reflect.DeepEqual(d, d2) {
					t.Fatalf("compact and indented forms decode differently:\n%#v\n%#v", d, d2)
				}
			}
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
		if err := codectest.CheckCatalogBytes(c, b); err != nil {
			t.Fatal(err)
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
		if err := codectest.CheckMetadataBytes(c, b); err != nil {
			t.Fatal(err)
		}
	})
}
