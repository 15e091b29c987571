package acceptance_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

func docsReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// newDocsEmbeddings is embed-hash at the fixtures' 32 dimensions, its
// calls counted.
func newDocsEmbeddings() *testkit.Recorder {
	return &testkit.Recorder{Model: embedhash.New(&embedhash.Options{Dimensions: 32})}
}

// docsFixtureChunking is the chunking config the fixtures were built with:
// Vectra's {chunkSize: 64} over its document defaults.
func docsFixtureChunking() core.ChunkingConfig {
	return core.ChunkingConfig{ChunkSize: 64, VectraChunking: true}
}

// docsOpenFixture copies a fixture document folder to a temporary folder
// and opens it through the facade with embed-hash at 32 dimensions, the
// fixtures' chunking config and the default o200k_base tokenizer.
func docsOpenFixture(t testing.TB, folder string, codec core.IndexCodec) (*core.LocalDocumentIndex, *testkit.Recorder, string) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), folder)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(testkit.FixtureDir(t), folder))); err != nil {
		t.Fatal(err)
	}
	ix, emb := docsOpen(t, dst, codec)
	return ix, emb, dst
}

// docsOpen opens the document index in dir through the facade as the
// fixtures were written: embed-hash at 32 dimensions (its calls counted),
// the fixtures' chunking config and the default o200k_base tokenizer.
func docsOpen(t testing.TB, dir string, codec core.IndexCodec) (*core.LocalDocumentIndex, *testkit.Recorder) {
	t.Helper()
	emb := newDocsEmbeddings()
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
		FolderPath:     dir,
		Embeddings:     emb,
		ChunkingConfig: docsFixtureChunking(),
		IndexOptions:   core.IndexOptions{Codec: codec},
	})
	if err != nil {
		t.Fatal(err)
	}
	return ix, emb
}

// docsFileNames lists the files of a folder, sorted, less Folio's lock
// file, which Vectra ignores.
func docsFileNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Name() == storagefs.LockFile {
			continue
		}
		out = append(out, e.Name())
	}
	return out
}
