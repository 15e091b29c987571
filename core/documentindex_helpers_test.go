package core

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/foliovec/folio/core/internal/testtok"
)

// docTestFixtureDir is the repository's testdata/vectra-0.15, beside core
// (core's tests cannot use conformance/testkit, which imports core).
func docTestFixtureDir(t testing.TB) string {
	t.Helper()
	p := filepath.Join("..", "testdata", "vectra-0.15")
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		t.Fatalf("the Vectra fixtures: %v", err)
	}
	return p
}

func docTestReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// docTestEmbeddings embeds each input as word counts hashed into 32
// dimensions (never a zero vector), records its calls, and returns queued
// failures first.
type docTestEmbeddings struct {
	maxTokens int
	mu        sync.Mutex
	calls     [][]string
	fail      []docTestFailure // returned by the next calls, in order
	override  func(inputs []string) (EmbeddingsResponse, error)
}

type docTestFailure struct {
	resp EmbeddingsResponse
	err  error
}

func (e *docTestEmbeddings) MaxTokens() int { return e.maxTokens }

func (e *docTestEmbeddings) CreateEmbeddings(ctx context.Context, inputs []string) (EmbeddingsResponse, error) {
	e.mu.Lock()
	e.calls = append(e.calls, slices.Clone(inputs))
	var f *docTestFailure
	if len(e.fail) > 0 {
		f = &e.fail[0]
		e.fail = e.fail[1:]
	}
	override := e.override
	e.mu.Unlock()
	if f != nil {
		return f.resp, f.err
	}
	if override != nil {
		return override(inputs)
	}
	if err := ctx.Err(); err != nil {
		return EmbeddingsResponse{Status: EmbeddingsCancelled}, &EmbeddingsError{Status: EmbeddingsCancelled, Err: err}
	}
	out := make([][]float32, len(inputs))
	for i, in := range inputs {
		out[i] = docTestVector(in)
	}
	return EmbeddingsResponse{Status: EmbeddingsSuccess, Output: out}, nil
}

func (e *docTestEmbeddings) callCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.calls)
}

func (e *docTestEmbeddings) lastCall() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.calls) == 0 {
		return nil
	}
	return e.calls[len(e.calls)-1]
}

// docTestVector hashes the words of s into 32 dimensions, plus a constant
// so that no vector is zero.
func docTestVector(s string) []float32 {
	v := make([]float32, 32)
	v[0] = 0.01
	for _, w := range strings.Fields(strings.ToLower(s)) {
		h := uint32(2166136261)
		for i := 0; i < len(w); i++ {
			h = (h ^ uint32(w[i])) * 16777619
		}
		v[h%32]++
	}
	return v
}

const docTestFolder = "docs"

// docTestEnv is a document index over test storage with a one-token-per-
// character tokenizer and 16-token chunks.
type docTestEnv struct {
	st  *memTestStorage
	emb *docTestEmbeddings
	cfg LocalDocumentIndexConfig
	ix  *LocalDocumentIndex
}

func newDocTestEnv(t testing.TB, edit func(*LocalDocumentIndexConfig)) *docTestEnv {
	t.Helper()
	env := &docTestEnv{st: newMemTestStorage(), emb: &docTestEmbeddings{maxTokens: 100}}
	env.cfg = LocalDocumentIndexConfig{
		FolderPath:     docTestFolder,
		Embeddings:     env.emb,
		Tokenizer:      testtok.Char{},
		ChunkingConfig: ChunkingConfig{ChunkSize: 16},
		IndexOptions: IndexOptions{Storage: env.st, Codec: jsonTestCodec{}, // Dropped files are deleted at the commit, so tests can list the
			// folder right after it; graveyard_test.go covers the default.
			RetainDropped: -1},
	}
	if edit != nil {
		edit(&env.cfg)
	}
	env.ix = env.open(t)
	return env
}

// open returns a new LocalDocumentIndex over the env's storage, as a
// restarted process would.
func (env *docTestEnv) open(t testing.TB) *LocalDocumentIndex {
	t.Helper()
	ix, err := NewLocalDocumentIndex(env.cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// created returns an env whose index is created.
func newCreatedDocEnv(t testing.TB, edit func(*LocalDocumentIndexConfig)) *docTestEnv {
	t.Helper()
	env := newDocTestEnv(t, edit)
	if err := env.ix.CreateIndex(context.Background(), CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	return env
}

func (env *docTestEnv) path(name string) string { return docTestFolder + "/" + name }

func mustUpsertDoc(t testing.TB, ix *LocalDocumentIndex, uri, text, docType string, md Metadata) *LocalDocument {
	t.Helper()
	doc, err := ix.UpsertDocument(context.Background(), uri, text, docType, md, nil)
	if err != nil {
		t.Fatalf("upsert %q: %v", uri, err)
	}
	return doc
}

// docChunks returns the committed chunk items of document id.
func docChunks(t testing.TB, ix *LocalDocumentIndex, id string) []IndexItem {
	t.Helper()
	items, err := ix.ListItems(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []IndexItem
	for _, it := range items {
		if it.Metadata["documentId"] == id {
			out = append(out, it)
		}
	}
	return out
}
