package codecjson_test

import (
	"reflect"
	"slices"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/conformance/testkit"
)

// TestDecodedFixturesMatchWhatVectraReads checks every fact Vectra's own
// dump lists for the JSON fixture folders: ids, inline metadata, metadata
// files, side-car metadata, norms, vectors (to float32 precision), the
// catalog and document metadata.
func TestDecodedFixturesMatchWhatVectraReads(t *testing.T) {
	c := codecjson.New()
	for _, folder := range []string{"items-json", "docs-json"} {
		t.Run(folder, func(t *testing.T) {
			dump := testkit.ReadDump(t, folder)
			index, err := c.DeserializeIndex(testkit.ReadFixture(t, folder, "index.json"))
			if err != nil {
				t.Fatal(err)
			}
			testkit.CheckDecodedItems(t, c, folder, index, dump)
			if dump.Catalog == nil {
				return
			}
			cat, err := c.DeserializeCatalog(testkit.ReadFixture(t, folder, "catalog.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cat, *dump.Catalog) {
				t.Errorf("catalog = %+v, Vectra reads %+v", cat, *dump.Catalog)
			}
			for _, doc := range dump.Documents {
				hasFile := slices.Contains(dump.Files, doc.ID+".json")
				if hasFile != doc.HasMetadata {
					t.Errorf("document %q: metadata file listed %v, Vectra says hasMetadata %v", doc.URI, hasFile, doc.HasMetadata)
				}
				if !doc.HasMetadata {
					continue
				}
				m, err := c.DeserializeMetadata(testkit.ReadFixture(t, folder, doc.ID+".json"))
				if err != nil {
					t.Errorf("document %q metadata: %v", doc.URI, err)
					continue
				}
				if !reflect.DeepEqual(m, doc.Metadata) {
					t.Errorf("document %q metadata = %v, Vectra reads %v", doc.URI, m, doc.Metadata)
				}
			}
		})
	}
}
