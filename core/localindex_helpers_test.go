package core

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// idxTestStorage is an in-memory FileStorage for LocalIndex tests, with
// hooks to fail writes and counters to observe them.
type idxTestStorage struct {
	mu      sync.Mutex
	files   map[string][]byte
	folders map[string]bool
	writes  map[string]int // successful writes per path
	// failWrite, when set, is asked before each CreateFile/UpsertFile; a
	// non-nil error fails the write.
	failWrite func(path string) error
}

var _ FileStorage = (*idxTestStorage)(nil)

func newIdxTestStorage() *idxTestStorage {
	return &idxTestStorage{files: map[string][]byte{}, folders: map[string]bool{}, writes: map[string]int{}}
}

func (m *idxTestStorage) write(ctx context.Context, p string, content []byte, create bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failWrite != nil {
		if err := m.failWrite(p); err != nil {
			return err
		}
	}
	if _, ok := m.files[p]; ok && create {
		return fmt.Errorf("create %q: %w", p, fs.ErrExist)
	}
	m.files[p] = slices.Clone(content)
	m.writes[p]++
	return nil
}

func (m *idxTestStorage) CreateFile(ctx context.Context, p string, content []byte) error {
	return m.write(ctx, p, content, true)
}

func (m *idxTestStorage) UpsertFile(ctx context.Context, p string, content []byte) error {
	return m.write(ctx, p, content, false)
}

func (m *idxTestStorage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[p]
	if !ok {
		return nil, fmt.Errorf("read %q: %w", p, fs.ErrNotExist)
	}
	return slices.Clone(b), nil
}

func (m *idxTestStorage) DeleteFile(ctx context.Context, p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.files, p)
	return nil
}

func (m *idxTestStorage) PathExists(ctx context.Context, p string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[p]; ok {
		return true, nil
	}
	return m.folders[p], nil
}

func (m *idxTestStorage) CreateFolder(ctx context.Context, p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.folders[p] = true
	return nil
}

func (m *idxTestStorage) DeleteFolder(ctx context.Context, p string) error {
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

func (m *idxTestStorage) GetDetails(ctx context.Context, p string) (FileDetails, error) {
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

func (m *idxTestStorage) ListFiles(ctx context.Context, folder string, filter ListFilesFilter) ([]FileDetails, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []FileDetails
	for f := range m.files {
		if rest, ok := strings.CutPrefix(f, folder+"/"); ok && !strings.Contains(rest, "/") && filter != ListFoldersOnly {
			out = append(out, FileDetails{Name: rest, Path: f})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// fileNames lists the names of the files directly in folder, sorted.
func (m *idxTestStorage) fileNames(folder string) []string {
	fds, _ := m.ListFiles(context.Background(), folder, ListFilesOnly)
	var out []string
	for _, fd := range fds {
		out = append(out, fd.Name)
	}
	return out
}

func (m *idxTestStorage) writeCount(p string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.writes[p]
}

// idxTestCodec is a JSON IndexCodec for core tests (core cannot import the
// real codecs). It writes Vectra's shapes with encoding/json.
type idxTestCodec struct{}

var _ IndexCodec = idxTestCodec{}

type idxTestItem struct {
	ID           string         `json:"id"`
	Metadata     map[string]any `json:"metadata"`
	Vector       []float32      `json:"vector"`
	Norm         float64        `json:"norm"`
	MetadataFile string         `json:"metadataFile,omitempty"`
}

type idxTestConfig struct {
	Indexed *[]string `json:"indexed,omitempty"`
}

type idxTestData struct {
	Version        int           `json:"version"`
	MetadataConfig idxTestConfig `json:"metadata_config"`
	Items          []idxTestItem `json:"items"`
}

func (idxTestCodec) Extension() string { return ".json" }

func (idxTestCodec) SerializeIndex(d IndexData) ([]byte, error) {
	out := idxTestData{Version: d.Version, Items: make([]idxTestItem, len(d.Items))}
	if d.MetadataConfig.Indexed != nil {
		out.MetadataConfig.Indexed = &d.MetadataConfig.Indexed
	}
	for i, it := range d.Items {
		out.Items[i] = idxTestItem{ID: it.ID, Metadata: it.Metadata, Vector: it.Vector, Norm: it.Norm, MetadataFile: it.MetadataFile}
	}
	return json.Marshal(out)
}

func (idxTestCodec) DeserializeIndex(b []byte) (IndexData, error) {
	var in idxTestData
	if err := json.Unmarshal(b, &in); err != nil {
		return IndexData{}, fmt.Errorf("test codec: %w: %w", ErrCorrupt, err)
	}
	d := IndexData{Version: in.Version, Items: make([]IndexItem, len(in.Items))}
	if in.MetadataConfig.Indexed != nil {
		d.MetadataConfig.Indexed = *in.MetadataConfig.Indexed
	}
	for i, it := range in.Items {
		v := it.Vector
		if v == nil {
			v = []float32{}
		}
		d.Items[i] = IndexItem{ID: it.ID, Metadata: it.Metadata, Vector: v, Norm: it.Norm, MetadataFile: it.MetadataFile}
	}
	return d, nil
}

func (idxTestCodec) SerializeCatalog(c DocumentCatalog) ([]byte, error) { return json.Marshal(c) }

func (idxTestCodec) DeserializeCatalog(b []byte) (DocumentCatalog, error) {
	var c DocumentCatalog
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("test codec: %w: %w", ErrCorrupt, err)
	}
	return c, nil
}

func (idxTestCodec) SerializeMetadata(m Metadata) ([]byte, error) { return json.Marshal(m) }

func (idxTestCodec) DeserializeMetadata(b []byte) (Metadata, error) {
	var m Metadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("test codec: %w: %w", ErrCorrupt, err)
	}
	return m, nil
}

const idxTestFolder = "idx"

// newTestIndex returns an index on fresh test storage, not yet created.
func newTestIndex(t testing.TB) (*LocalIndex, *idxTestStorage) {
	t.Helper()
	st := newIdxTestStorage()
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: idxTestCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	return ix, st
}

// newCreatedIndex returns a created index with cfg.
func newCreatedIndex(t testing.TB, cfg CreateIndexConfig) (*LocalIndex, *idxTestStorage) {
	t.Helper()
	ix, st := newTestIndex(t)
	if err := ix.CreateIndex(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	return ix, st
}

// reopen returns a new LocalIndex over the same storage, so the next read
// loads the index file.
func reopen(t testing.TB, st *idxTestStorage) *LocalIndex {
	t.Helper()
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: idxTestCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func mustInsert(t testing.TB, ix *LocalIndex, id string, vec []float32, md Metadata) IndexItem {
	t.Helper()
	it, err := ix.InsertItem(context.Background(), IndexItem{ID: id, Vector: vec, Metadata: md})
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func itemIDs(items []IndexItem) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

func resultIDs(rs []QueryResult) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Item.ID)
	}
	return out
}

func mustList(t testing.TB, ix *LocalIndex) []IndexItem {
	t.Helper()
	items, err := ix.ListItems(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// gaussianUnitVectors returns n deterministic vectors of dimension d drawn
// from a standard normal distribution and scaled to unit length.
func gaussianUnitVectors(seed uint64, n, d int) [][]float32 {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([][]float32, n)
	backing := make([]float32, n*d)
	for i := range out {
		v := backing[i*d : (i+1)*d : (i+1)*d]
		var sum float64
		for j := range v {
			x := r.NormFloat64()
			v[j] = float32(x)
			sum += x * x
		}
		inv := 1 / math.Sqrt(sum)
		for j := range v {
			v[j] = float32(float64(v[j]) * inv)
		}
		out[i] = v
	}
	return out
}

// bruteForce ranks items by exact float64 cosine similarity to q among those
// keep accepts: zero-norm items last with score 0, ties in item order.
func bruteForce(items []IndexItem, q []float32, k int, keep func(IndexItem) bool) []string {
	type hit struct {
		id    string
		score float64
		def   bool
		pos   int
	}
	var qn float64
	for _, x := range q {
		qn += float64(x) * float64(x)
	}
	qn = math.Sqrt(qn)
	var hits []hit
	for i, it := range items {
		if keep != nil && !keep(it) {
			continue
		}
		var dot, n float64
		for j := range min(len(q), len(it.Vector)) {
			dot += float64(q[j]) * float64(it.Vector[j])
		}
		for _, x := range it.Vector {
			n += float64(x) * float64(x)
		}
		n = math.Sqrt(n)
		h := hit{id: it.ID, pos: i}
		if n != 0 && qn != 0 {
			h.score, h.def = dot/(qn*n), true
		}
		hits = append(hits, h)
	}
	slices.SortFunc(hits, func(a, b hit) int {
		switch {
		case a.def != b.def:
			if a.def {
				return -1
			}
			return 1
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.pos - b.pos
	})
	out := []string{}
	for i := 0; i < len(hits) && i < k; i++ {
		out = append(out, hits[i].id)
	}
	return out
}
