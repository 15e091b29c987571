package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// docTestFixtureDir finds testdata/vectra-0.15 by walking up from the
// package directory.
func docTestFixtureDir(t testing.TB) string {
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

// docTestStorage is an in-memory FileStorage for document index tests. It
// records calls, fails the writes or deletes a test asks it to, and can
// crash: from the Nth mutation on (writes and deletes counted from 1),
// every mutation fails, as if the process had died at that point.
type docTestStorage struct {
	mu      sync.Mutex
	files   map[string][]byte
	folders map[string]bool
	reads   map[string]int
	writes  []string // paths written, in order
	deletes []string // paths deleted, in order

	failWrite  func(path string) error
	failDelete func(path string) error
	crashAt    int // 0: never
	mutations  int
}

var _ FileStorage = (*docTestStorage)(nil)

var errDocTestCrash = errors.New("test storage: crashed")

func newDocTestStorage() *docTestStorage {
	return &docTestStorage{files: map[string][]byte{}, folders: map[string]bool{}, reads: map[string]int{}}
}

// mutate counts a mutation and reports whether it must fail.
func (m *docTestStorage) mutate() error {
	m.mutations++
	if m.crashAt > 0 && m.mutations >= m.crashAt {
		return errDocTestCrash
	}
	return nil
}

func (m *docTestStorage) write(ctx context.Context, p string, content []byte, create bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.mutate(); err != nil {
		return err
	}
	if m.failWrite != nil {
		if err := m.failWrite(p); err != nil {
			return err
		}
	}
	if _, ok := m.files[p]; ok && create {
		return fmt.Errorf("create %q: %w", p, fs.ErrExist)
	}
	m.files[p] = slices.Clone(content)
	m.writes = append(m.writes, p)
	return nil
}

func (m *docTestStorage) CreateFile(ctx context.Context, p string, content []byte) error {
	return m.write(ctx, p, content, true)
}

func (m *docTestStorage) UpsertFile(ctx context.Context, p string, content []byte) error {
	return m.write(ctx, p, content, false)
}

func (m *docTestStorage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads[p]++
	b, ok := m.files[p]
	if !ok {
		return nil, fmt.Errorf("read %q: %w", p, fs.ErrNotExist)
	}
	return slices.Clone(b), nil
}

func (m *docTestStorage) DeleteFile(ctx context.Context, p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.mutate(); err != nil {
		return err
	}
	if m.failDelete != nil {
		if err := m.failDelete(p); err != nil {
			return err
		}
	}
	delete(m.files, p)
	m.deletes = append(m.deletes, p)
	return nil
}

func (m *docTestStorage) PathExists(ctx context.Context, p string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[p]; ok {
		return true, nil
	}
	return m.folders[p], nil
}

func (m *docTestStorage) CreateFolder(ctx context.Context, p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.folders[p] = true
	return nil
}

func (m *docTestStorage) DeleteFolder(ctx context.Context, p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.folders, p)
	for f := range m.files {
		if strings.HasPrefix(f, p+"/") {
			delete(m.files, f)
		}
	}
	return nil
}

func (m *docTestStorage) GetDetails(ctx context.Context, p string) (FileDetails, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name := p[strings.LastIndex(p, "/")+1:]
	if _, ok := m.files[p]; ok {
		return FileDetails{Name: name, Path: p}, nil
	}
	if m.folders[p] {
		return FileDetails{Name: name, Path: p, IsFolder: true, FileType: FileTypeFolder}, nil
	}
	return FileDetails{}, fmt.Errorf("details %q: %w", p, fs.ErrNotExist)
}

func (m *docTestStorage) ListFiles(ctx context.Context, folder string, filter ListFilesFilter) ([]FileDetails, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []FileDetails
	for f := range m.files {
		if rest, ok := strings.CutPrefix(f, folder+"/"); ok && !strings.Contains(rest, "/") && filter != ListFoldersOnly {
			out = append(out, FileDetails{Name: rest, Path: f})
		}
	}
	slices.SortFunc(out, func(a, b FileDetails) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// names lists the files directly in folder, sorted.
func (m *docTestStorage) names(folder string) []string {
	fds, _ := m.ListFiles(context.Background(), folder, ListFilesOnly)
	out := []string{}
	for _, fd := range fds {
		out = append(out, fd.Name)
	}
	return out
}

func (m *docTestStorage) file(p string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[p]
	return b, ok
}

func (m *docTestStorage) readCount(p string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reads[p]
}

func (m *docTestStorage) wrote(p string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Contains(m.writes, p)
}

// clone copies the files and folders (not the call records or failures).
func (m *docTestStorage) clone() *docTestStorage {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := newDocTestStorage()
	for k, v := range m.files {
		c.files[k] = slices.Clone(v)
	}
	for k, v := range m.folders {
		c.folders[k] = v
	}
	return c
}

// docTestCodec is a JSON IndexCodec for core tests (core cannot import the
// real codecs) with a chosen extension; ".pb" makes a protobuf-named folder
// whose files are JSON, which is all the document index cares about.
type docTestCodec struct{ ext string }

var _ IndexCodec = docTestCodec{}

type docTestItem struct {
	ID           string         `json:"id"`
	Metadata     map[string]any `json:"metadata"`
	Vector       []float32      `json:"vector"`
	Norm         float64        `json:"norm"`
	MetadataFile string         `json:"metadataFile,omitempty"`
}

type docTestIndexData struct {
	Version int           `json:"version"`
	Indexed []string      `json:"indexed,omitempty"`
	Items   []docTestItem `json:"items"`
}

type docTestCatalog struct {
	Version   int               `json:"version"`
	Count     int               `json:"count"`
	URIToID   map[string]string `json:"uriToId"`
	IDToURI   map[string]string `json:"idToUri"`
	URIToHash map[string]string `json:"uriToHash,omitempty"`
}

func (c docTestCodec) Extension() string {
	if c.ext == "" {
		return ".json"
	}
	return c.ext
}

func (docTestCodec) SerializeIndex(d IndexData) ([]byte, error) {
	out := docTestIndexData{Version: d.Version, Indexed: d.MetadataConfig.Indexed, Items: make([]docTestItem, len(d.Items))}
	for i, it := range d.Items {
		out.Items[i] = docTestItem{ID: it.ID, Metadata: it.Metadata, Vector: it.Vector, Norm: it.Norm, MetadataFile: it.MetadataFile}
	}
	return json.Marshal(out)
}

func (docTestCodec) DeserializeIndex(b []byte) (IndexData, error) {
	var in docTestIndexData
	if err := json.Unmarshal(b, &in); err != nil {
		return IndexData{}, fmt.Errorf("test codec: %w: %w", ErrCorrupt, err)
	}
	d := IndexData{Version: in.Version, MetadataConfig: MetadataConfig{Indexed: in.Indexed}, Items: make([]IndexItem, len(in.Items))}
	for i, it := range in.Items {
		v := it.Vector
		if v == nil {
			v = []float32{}
		}
		d.Items[i] = IndexItem{ID: it.ID, Metadata: it.Metadata, Vector: v, Norm: it.Norm, MetadataFile: it.MetadataFile}
	}
	return d, nil
}

func (docTestCodec) SerializeCatalog(c DocumentCatalog) ([]byte, error) {
	return json.Marshal(docTestCatalog(c))
}

func (docTestCodec) DeserializeCatalog(b []byte) (DocumentCatalog, error) {
	var c docTestCatalog
	if err := json.Unmarshal(b, &c); err != nil {
		return DocumentCatalog{}, fmt.Errorf("test codec: %w: %w", ErrCorrupt, err)
	}
	return DocumentCatalog(c), nil
}

func (docTestCodec) SerializeMetadata(m Metadata) ([]byte, error) { return json.Marshal(m) }

func (docTestCodec) DeserializeMetadata(b []byte) (Metadata, error) {
	var m Metadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("test codec: %w: %w", ErrCorrupt, err)
	}
	return m, nil
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
	st  *docTestStorage
	emb *docTestEmbeddings
	cfg LocalDocumentIndexConfig
	ix  *LocalDocumentIndex
}

func newDocTestEnv(t testing.TB, edit func(*LocalDocumentIndexConfig)) *docTestEnv {
	t.Helper()
	env := &docTestEnv{st: newDocTestStorage(), emb: &docTestEmbeddings{maxTokens: 100}}
	env.cfg = LocalDocumentIndexConfig{
		FolderPath:     docTestFolder,
		Embeddings:     env.emb,
		Tokenizer:      renderCharTokenizer{},
		ChunkingConfig: &TextSplitterConfig{ChunkSize: 16, KeepSeparators: true},
		Storage:        env.st,
		Codec:          docTestCodec{},
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
