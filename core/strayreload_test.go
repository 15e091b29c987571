package core

import (
	"context"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/foliovec/folio/core/internal/testtok"
)

// versionedOnly is a storage with file versions and no folder lock, as an
// object store is: a reader in another process may read between two of a
// writer's commit writes. Before the writer writes the catalog, it runs
// beforeCatalog (once).
type versionedOnly struct {
	mem           *MemoryStorage
	beforeCatalog func()
}

func (s *versionedOnly) CreateFile(ctx context.Context, p string, b []byte) error {
	return s.mem.CreateFile(ctx, p, b)
}

func (s *versionedOnly) UpsertFile(ctx context.Context, p string, b []byte) error {
	if f := s.beforeCatalog; f != nil && strings.HasPrefix(path.Base(p), "catalog.") {
		s.beforeCatalog = nil
		f()
	}
	return s.mem.UpsertFile(ctx, p, b)
}

func (s *versionedOnly) ReadFile(ctx context.Context, p string) ([]byte, error) {
	return s.mem.ReadFile(ctx, p)
}
func (s *versionedOnly) DeleteFile(ctx context.Context, p string) error {
	return s.mem.DeleteFile(ctx, p)
}
func (s *versionedOnly) PathExists(ctx context.Context, p string) (bool, error) {
	return s.mem.PathExists(ctx, p)
}
func (s *versionedOnly) CreateFolder(ctx context.Context, p string) error {
	return s.mem.CreateFolder(ctx, p)
}
func (s *versionedOnly) DeleteFolder(ctx context.Context, p string) error {
	return s.mem.DeleteFolder(ctx, p)
}
func (s *versionedOnly) GetDetails(ctx context.Context, p string) (FileDetails, error) {
	return s.mem.GetDetails(ctx, p)
}
func (s *versionedOnly) ListFiles(ctx context.Context, p string, f ListFilesFilter) ([]FileDetails, error) {
	return s.mem.ListFiles(ctx, p, f)
}
func (s *versionedOnly) FileVersion(ctx context.Context, p string) (string, error) {
	return s.mem.FileVersion(ctx, p)
}

// TestReaderBetweenIndexAndCatalogWrites: a reader in another process that
// reloads after a writer's commit wrote the index and before it wrote the
// catalog sees the new chunks as strays and leaves them out; once the
// catalog lands, its next reload admits them, on both layouts (it used to
// miss them on the segmented one for good, whose reload reads only new
// segments).
func TestReaderBetweenIndexAndCatalogWrites(t *testing.T) {
	for _, layout := range []Layout{LayoutFile, LayoutSegmented} {
		t.Run(string(layout), func(t *testing.T) {
			ctx := context.Background()
			st := &versionedOnly{mem: NewMemoryStorage()}
			open := func() *LocalDocumentIndex {
				d, err := NewLocalDocumentIndex(LocalDocumentIndexConfig{
					FolderPath: idxTestFolder, Embeddings: &docTestEmbeddings{maxTokens: 10_000}, Tokenizer: testtok.Char{},
					ChunkingConfig: ChunkingConfig{ChunkSize: 40},
					IndexOptions:   IndexOptions{Storage: st, Codec: jsonTestCodec{}, FreshnessInterval: time.Nanosecond},
				})
				if err != nil {
					t.Fatal(err)
				}
				return d
			}
			writer := open()
			if err := writer.CreateIndex(ctx, CreateIndexConfig{Layout: layout}); err != nil {
				t.Fatal(err)
			}
			if _, err := writer.UpsertDocument(ctx, "first", "red red red red", "txt", nil, nil); err != nil {
				t.Fatal(err)
			}
			reader := open()
			if docs, err := reader.ListDocuments(ctx); err != nil || len(docs) != 1 {
				t.Fatalf("the reader lists %d documents (%v), want 1", len(docs), err)
			}
			between := -1
			st.beforeCatalog = func() {
				res, err := reader.QueryDocuments(ctx, "blue", &DocumentQueryOptions{MaxDocuments: 5})
				if err != nil {
					t.Errorf("query between the writes: %v", err)
				}
				between = len(res)
			}
			if _, err := writer.UpsertDocument(ctx, "second", "blue blue blue blue", "txt", nil, nil); err != nil {
				t.Fatal(err)
			}
			if between != 1 {
				t.Fatalf("between the index and the catalog writes the reader found %d documents, want the 1 the catalog names (-1: the commit wrote no catalog after the index)", between)
			}
			for _, r := range []*LocalDocumentIndex{reader, open()} {
				res, err := r.QueryDocuments(ctx, "blue", &DocumentQueryOptions{MaxDocuments: 5})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(res, func(d *LocalDocumentResult) bool { return d.URI() == "second" }) {
					t.Fatalf("after the commit a reader finds %d documents for %q, not the one committed", len(res), "blue")
				}
			}
		})
	}
}
