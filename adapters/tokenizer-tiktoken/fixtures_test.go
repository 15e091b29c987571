package tokenizertiktoken_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// fixturesDir walks up from the package directory to testdata/vectra-0.15.
func fixturesDir(t testing.TB) string {
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

// fixtureDocument is a document of dumps/docs-json.json.
type fixtureDocument struct {
	ID          string `json:"id"`
	URI         string `json:"uri"`
	Text        string `json:"text"`
	TokenLength int    `json:"tokenLength"`
	ChunkCount  int    `json:"chunkCount"`
}

// fixtureChunk is a chunk item of dumps/docs-json.json.
type fixtureChunk struct {
	Metadata struct {
		DocumentID string `json:"documentId"`
		StartPos   int    `json:"startPos"`
		EndPos     int    `json:"endPos"`
	} `json:"metadata"`
	Vector []float64 `json:"vector"`
}

type fixtureDump struct {
	Documents []fixtureDocument `json:"documents"`
	Items     []fixtureChunk    `json:"items"`
}

func loadFixtureDump(t testing.TB) fixtureDump {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixturesDir(t), "dumps", "docs-json.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d fixtureDump
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Documents) == 0 || len(d.Items) == 0 {
		t.Fatal("docs-json dump has no documents or items")
	}
	return d
}

func loadFixtureDocuments(t testing.TB) []fixtureDocument {
	return loadFixtureDump(t).Documents
}
