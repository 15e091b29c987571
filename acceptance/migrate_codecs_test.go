package acceptance_test

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// The cross-codec cases of Vectra's src/codecs/ProtobufCodec.spec.ts
//: what a migration relies on, the two codecs agreeing on
// content.

func TestJSONToProtobufToJSONKeepsIndexData(t *testing.T) {
	js, pb := codecjson.New(), codecpb.New()
	for _, folder := range []string{"items-json", "docs-json"} {
		raw, err := os.ReadFile(filepath.Join(testkit.FixtureDir(t), folder, "index.json"))
		if err != nil {
			t.Fatal(err)
		}
		first, err := js.DeserializeIndex(raw)
		if err != nil {
			t.Fatal(err)
		}
		b, err := pb.SerializeIndex(first)
		if err != nil {
			t.Fatal(err)
		}
		mid, err := pb.DeserializeIndex(b)
		if err != nil {
			t.Fatal(err)
		}
		b, err = js.SerializeIndex(mid)
		if err != nil {
			t.Fatal(err)
		}
		last, err := js.DeserializeIndex(b)
		if err != nil {
			t.Fatal(err)
		}
		// protobuf reads a missing indexed list as empty (Vectra's
		// `indexed ?? []`); everything else comes back as it was.
		if first.MetadataConfig.Indexed == nil && len(last.MetadataConfig.Indexed) == 0 {
			last.MetadataConfig.Indexed = nil
		}
		if !reflect.DeepEqual(first, last) {
			t.Errorf("%s: index data changed through protobuf", folder)
		}
	}
}

func TestCatalogIsTheSameInBothCodecs(t *testing.T) {
	js, pb := codecjson.New(), codecpb.New()
	fixtures := testkit.FixtureDir(t)
	rawJSON, err := os.ReadFile(filepath.Join(fixtures, "docs-json", "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	rawPB, err := os.ReadFile(filepath.Join(fixtures, "docs-protobuf", "catalog.pb"))
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := js.DeserializeCatalog(rawJSON)
	if err != nil {
		t.Fatal(err)
	}
	fromPB, err := pb.DeserializeCatalog(rawPB)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, fromPB) {
		t.Errorf("catalogs differ:\njson %#v\n  pb %#v", fromJSON, fromPB)
	}
	for _, cat := range []core.DocumentCatalog{
		fromJSON,
		{Version: 1, URIToID: map[string]string{}, IDToURI: map[string]string{}}, // before any upsert: no uriToHash
	} {
		b, err := pb.SerializeCatalog(cat)
		if err != nil {
			t.Fatal(err)
		}
		back, err := pb.DeserializeCatalog(b)
		if err != nil {
			t.Fatal(err)
		}
		b, err = js.SerializeCatalog(back)
		if err != nil {
			t.Fatal(err)
		}
		again, err := js.DeserializeCatalog(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, cat) {
			t.Errorf("catalog changed through protobuf:\n got %#v\nwant %#v", again, cat)
		}
	}
}

func TestProtobufIsSmallerThanJSONForALargeVector(t *testing.T) {
	v := make([]float32, 1536)
	for i := range v {
		v[i] = float32(math.Sin(float64(i)*0.7)) / 39
	}
	d := core.IndexData{Version: 1, Items: []core.IndexItem{{ID: "big", Metadata: core.Metadata{}, Vector: v, Norm: 1}}}
	jb, err := codecjson.New().SerializeIndex(d)
	if err != nil {
		t.Fatal(err)
	}
	pbb, err := codecpb.New().SerializeIndex(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(pbb) >= len(jb)/2 {
		t.Errorf("protobuf %d bytes, JSON %d: want less than half", len(pbb), len(jb))
	}
}
