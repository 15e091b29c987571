package codecjson_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// vectraDump is dumps/<folder>.json: what Vectra itself reads back from a
// fixture folder.
type vectraDump struct {
	Stats struct {
		Version        int `json:"version"`
		MetadataConfig struct {
			Indexed []string `json:"indexed"`
		} `json:"metadata_config"`
		Items int `json:"items"`
	} `json:"stats"`
	Items []struct {
		ID              string         `json:"id"`
		Dims            int            `json:"dims"`
		Metadata        map[string]any `json:"metadata"`
		MetadataFile    string         `json:"metadataFile"`
		SidecarMetadata map[string]any `json:"sidecarMetadata"`
		Norm            float64        `json:"norm"`
		Vector          []float64      `json:"vector"`
	} `json:"items"`
	Catalog *struct {
		Version   int               `json:"version"`
		Count     int               `json:"count"`
		URIToID   map[string]string `json:"uriToId"`
		IDToURI   map[string]string `json:"idToUri"`
		URIToHash map[string]string `json:"uriToHash"`
	} `json:"catalog"`
	Documents []struct {
		ID          string         `json:"id"`
		URI         string         `json:"uri"`
		HasMetadata bool           `json:"hasMetadata"`
		Metadata    map[string]any `json:"metadata"`
	} `json:"documents"`
	Files []string `json:"files"`
}

func readDump(t *testing.T, folder string) vectraDump {
	t.Helper()
	var d vectraDump
	if err := json.Unmarshal(testkit.ReadFixture(t, "dumps", folder+".json"), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDecodedFixturesMatchWhatVectraReads checks every fact Vectra's own
// dump lists for the JSON fixture folders: ids, inline metadata, metadata
// files, side-car metadata, norms, vectors (to float32 precision), the
// catalog and document metadata.
func TestDecodedFixturesMatchWhatVectraReads(t *testing.T) {
	c := codecjson.New()
	for _, folder := range []string{"items-json", "docs-json"} {
		t.Run(folder, func(t *testing.T) {
			dump := readDump(t, folder)
			index, err := c.DeserializeIndex(testkit.ReadFixture(t, folder, "index.json"))
			if err != nil {
				t.Fatal(err)
			}
			if index.Version != dump.Stats.Version {
				t.Errorf("version = %d, Vectra reads %d", index.Version, dump.Stats.Version)
			}
			if !slices.Equal(index.MetadataConfig.Indexed, dump.Stats.MetadataConfig.Indexed) ||
				(index.MetadataConfig.Indexed == nil) != (dump.Stats.MetadataConfig.Indexed == nil) {
				t.Errorf("indexed = %#v, Vectra reads %#v", index.MetadataConfig.Indexed, dump.Stats.MetadataConfig.Indexed)
			}
			if len(index.Items) != dump.Stats.Items || len(index.Items) != len(dump.Items) {
				t.Fatalf("%d items, Vectra reads %d", len(index.Items), dump.Stats.Items)
			}
			byID := map[string]core.IndexItem{}
			for _, it := range index.Items {
				byID[it.ID] = it
			}
			for _, want := range dump.Items {
				got, ok := byID[want.ID]
				if !ok {
					t.Errorf("item %q missing", want.ID)
					continue
				}
				if !reflect.DeepEqual(map[string]any(got.Metadata), want.Metadata) {
					t.Errorf("item %q metadata = %v, Vectra reads %v", want.ID, got.Metadata, want.Metadata)
				}
				if got.MetadataFile != want.MetadataFile {
					t.Errorf("item %q metadataFile = %q, Vectra reads %q", want.ID, got.MetadataFile, want.MetadataFile)
				}
				if got.Norm != want.Norm {
					t.Errorf("item %q norm = %v, Vectra reads %v", want.ID, got.Norm, want.Norm)
				}
				if len(got.Vector) != want.Dims || len(want.Vector) != want.Dims {
					t.Errorf("item %q has %d dimensions, Vectra reads %d", want.ID, len(got.Vector), want.Dims)
					continue
				}
				for i, x := range want.Vector {
					if got.Vector[i] != float32(x) {
						t.Errorf("item %q vector[%d] = %v, Vectra reads %v (float32 %v)", want.ID, i, got.Vector[i], x, float32(x))
						break
					}
				}
				if want.MetadataFile == "" {
					continue
				}
				side, err := c.DeserializeMetadata(testkit.ReadFixture(t, folder, want.MetadataFile))
				if err != nil {
					t.Errorf("item %q side-car: %v", want.ID, err)
					continue
				}
				if !reflect.DeepEqual(map[string]any(side), want.SidecarMetadata) {
					t.Errorf("item %q side-car = %v, Vectra reads %v", want.ID, side, want.SidecarMetadata)
				}
			}
			if dump.Catalog == nil {
				return
			}
			cat, err := c.DeserializeCatalog(testkit.ReadFixture(t, folder, "catalog.json"))
			if err != nil {
				t.Fatal(err)
			}
			wantCat := core.DocumentCatalog{
				Version: dump.Catalog.Version, Count: dump.Catalog.Count,
				URIToID: dump.Catalog.URIToID, IDToURI: dump.Catalog.IDToURI, URIToHash: dump.Catalog.URIToHash,
			}
			if !reflect.DeepEqual(cat, wantCat) {
				t.Errorf("catalog = %+v, Vectra reads %+v", cat, wantCat)
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
				if !reflect.DeepEqual(map[string]any(m), doc.Metadata) {
					t.Errorf("document %q metadata = %v, Vectra reads %v", doc.URI, m, doc.Metadata)
				}
			}
		})
	}
}
