package folio_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/core/manager"
)

// NewIndexManager needs only a root folder, as Vectra's IndexManager:
// local files, both formats and o200k_base are the defaults.
func TestNewIndexManagerDefaults(t *testing.T) {
	root := t.TempDir()
	m, err := folio.NewIndexManager(manager.Config{RootDir: root, Embeddings: embedhash.New(&embedhash.Options{Dimensions: 16}), ScanInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown()
	if err := m.Initialize(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, format, file string }{{"docs", folio.FormatJSON, "index.json"}, {"fast", folio.FormatProtobuf, "index.pb"}} {
		mi, err := m.CreateIndex(t.Context(), c.name, manager.CreateConfig{Format: c.format, IsDocumentIndex: true})
		if err != nil {
			t.Fatalf("CreateIndex %s: %v", c.format, err)
		}
		if _, err := mi.Documents.UpsertDocument(t.Context(), "a.txt", "some text to find", "txt", nil, nil); err != nil {
			t.Fatalf("%s: UpsertDocument: %v", c.format, err)
		}
		if _, err := os.Stat(filepath.Join(root, c.name, c.file)); err != nil {
			t.Errorf("%s: %v", c.format, err)
		}
	}
}
