package tokenizertiktoken_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/foliovec/folio/conformance/testkit"
)

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
	data, err := os.ReadFile(filepath.Join(testkit.FixtureDir(t), "dumps", "docs-json.json"))
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
