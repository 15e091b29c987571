package codecpb_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// fixtureDir finds testdata/vectra-0.15 by walking up from the package
// directory.
func fixtureDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "testdata", "vectra-0.15")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testdata/vectra-0.15 not found above the package directory")
		}
		dir = parent
	}
}

// readFixture reads a file of the fixture folder, e.g. "items-protobuf/index.pb".
func readFixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

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
	if err := json.Unmarshal(readFixture(t, "dumps/"+folder+".json"), &d); err != nil {
		t.Fatal(err)
	}
	return d
}
