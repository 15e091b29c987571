package acceptance_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

// docsFixtures finds testdata/vectra-0.15, the folders Vectra wrote, by
// walking up from the package directory.
func docsFixtures(t testing.TB) string {
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
			t.Fatal("testdata/vectra-0.15 not found")
		}
		dir = parent
	}
}

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

// docsCountingEmbeddings is embed-hash at the fixtures' 32 dimensions,
// counting its calls.
type docsCountingEmbeddings struct {
	*embedhash.HashEmbeddings
	calls atomic.Int64
}

func newDocsEmbeddings() *docsCountingEmbeddings {
	return &docsCountingEmbeddings{HashEmbeddings: embedhash.New(&embedhash.Options{Dimensions: 32})}
}

func (e *docsCountingEmbeddings) CreateEmbeddings(ctx context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	e.calls.Add(1)
	return e.HashEmbeddings.CreateEmbeddings(ctx, inputs)
}

// docsFixtureChunking is the chunking config the fixtures were built with:
// Vectra's {chunkSize: 64} over its document defaults.
func docsFixtureChunking() core.ChunkingConfig {
	return core.ChunkingConfig{ChunkSize: 64, VectraChunking: true}
}

// docsOpenFixture copies a fixture document folder to a temporary folder
// and opens it through the facade with embed-hash at 32 dimensions, the
// fixtures' chunking config and the default o200k_base tokenizer.
func docsOpenFixture(t testing.TB, folder string, codec core.IndexCodec) (*core.LocalDocumentIndex, *docsCountingEmbeddings, string) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), folder)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(docsFixtures(t), folder))); err != nil {
		t.Fatal(err)
	}
	emb := newDocsEmbeddings()
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
		FolderPath:     dst,
		Embeddings:     emb,
		ChunkingConfig: docsFixtureChunking(),
		IndexOptions:   core.IndexOptions{Codec: codec},
	})
	if err != nil {
		t.Fatal(err)
	}
	return ix, emb, dst
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
