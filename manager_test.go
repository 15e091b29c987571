package folio_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/core"
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

// ManagerConfig fills what a partial configuration leaves unset and keeps
// what it sets.
func TestManagerConfigDefaults(t *testing.T) {
	cfg, err := folio.ManagerConfig(manager.Config{RootDir: "indexes", IndexOptions: core.IndexOptions{QuantizedScan: true}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Storage == nil || cfg.Tokenizer == nil || cfg.Formats[folio.FormatJSON] == nil || cfg.Formats[folio.FormatProtobuf] == nil {
		t.Errorf("defaults missing: storage %v, tokenizer %v, formats %v", cfg.Storage, cfg.Tokenizer, cfg.Formats)
	}
	if cfg.RootDir != "indexes" || !cfg.QuantizedScan || cfg.Codec != nil {
		t.Errorf("ManagerConfig changed what was set: %+v", cfg)
	}
	mine := map[string]core.IndexCodec{folio.FormatJSON: nil}
	if cfg, _ := folio.ManagerConfig(manager.Config{Formats: mine}); len(cfg.Formats) != 1 {
		t.Errorf("ManagerConfig replaced the formats given: %v", cfg.Formats)
	}
}
