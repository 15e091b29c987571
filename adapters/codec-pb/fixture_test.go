package codecpb_test

import (
	"encoding/json"
	"testing"

	"github.com/foliovec/folio/conformance/testkit"
)

// dump is dumps/<folder>.json: what Vectra itself reads back from a folder.
type dump struct {
	Format string `json:"format"`
	Stats  struct {
		Version        int `json:"version"`
		Items          int `json:"items"`
		MetadataConfig struct {
			Indexed []string `json:"indexed"`
		} `json:"metadata_config"`
	} `json:"stats"`
	Items []struct {
		ID              string         `json:"id"`
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

func readDump(t testing.TB, folder string) dump {
	t.Helper()
	var d dump
	if err := json.Unmarshal(testkit.ReadFixture(t, "dumps/"+folder+".json"), &d); err != nil {
		t.Fatal(err)
	}
	return d
}
