package core

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// A document upserted in a batch whose commit failed after writing only
// some of its files: a write that would join the batch is refused, naming
// the failure (it was accepted into a batch that might never commit); the
// batch cancelled, the document replaced or deleted in batches of its own
// leaves no file of the failed commit's version behind.
func TestFilesOfAFailedCommitAreRemovedWhenTheirDocumentIsReplacedInTheBatch(t *testing.T) {
	errDisk := errors.New("disk full")
	for _, tc := range []struct {
		name   string
		second func(ctx context.Context, ix *LocalDocumentIndex) error
	}{
		{"replaced", func(ctx context.Context, ix *LocalDocumentIndex) error {
			_, err := ix.UpsertDocument(ctx, "a", "a second text for document a", "", nil, nil)
			return err
		}},
		{"deleted", func(ctx context.Context, ix *LocalDocumentIndex) error {
			return ix.DeleteDocument(ctx, "a")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			env := newCreatedDocEnv(t, func(c *LocalDocumentIndexConfig) { c.RetainDropped = -1 })
			ix := env.ix
			if err := ix.BeginUpdate(ctx); err != nil {
				t.Fatal(err)
			}
			first, err := ix.UpsertDocument(ctx, "a", "the first text of document a", "", Metadata{"v": 1.0}, nil)
			if err != nil {
				t.Fatal(err)
			}
			env.st.failWrite = func(p string) error {
				if strings.HasSuffix(p, ".txt") {
					return errDisk
				}
				return nil
			}
			if err := ix.EndUpdate(ctx); !errors.Is(err, errDisk) {
				t.Fatalf("EndUpdate with the text write failing: %v, want %v", err, errDisk)
			}
			if _, ok := env.st.file(env.path(first.ID() + ".json")); !ok {
				t.Fatalf("the metadata file of the first version was not written")
			}
			env.st.failWrite = nil
			if err := tc.second(ctx, ix); !errors.Is(err, ErrUpdateInProgress) || !strings.Contains(err.Error(), errDisk.Error()) {
				t.Fatalf("a write joining the failed batch: %v, want ErrUpdateInProgress naming %v", err, errDisk)
			}
			ix.CancelUpdate()
			if _, err := ix.UpsertDocument(ctx, "a", "the first text of document a, again", "", nil, nil); err != nil {
				t.Fatal(err)
			}
			if err := tc.second(ctx, ix); err != nil {
				t.Fatal(err)
			}
			for _, name := range env.st.fileNames(docTestFolder) {
				if strings.HasPrefix(name, first.ID()) {
					t.Errorf("file %q of the version the batch %s is left behind", name, tc.name)
				}
			}
		})
	}
}

// landedStorage is test storage whose writes of one path land and then
// fail, as a write whose file was renamed into place but whose folder sync
// failed.
type landedStorage struct {
	*memTestStorage
	failAfter func(path string) bool // nil: none
}

var errDocTestLanded = errors.New("test storage: written, then the folder sync failed")

func (m *landedStorage) UpsertFile(ctx context.Context, p string, content []byte) error {
	if err := m.memTestStorage.UpsertFile(ctx, p, content); err != nil {
		return err
	}
	if m.failAfter != nil && m.failAfter(p) {
		return errDocTestLanded
	}
	return nil
}

// An index write that reports a failure may still have landed: the catalog
// a cancelled commit puts back must keep the invariant of catalog.go (a
// catalog entry with a content hash has all of its chunks in the index)
// whichever index file is on disk.
func TestCancelledCommitKeepsTheInvariantWhenTheIndexWriteLanded(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   func(ctx context.Context, ix *LocalDocumentIndex) error
	}{
		{"replace", func(ctx context.Context, ix *LocalDocumentIndex) error {
			_, err := ix.UpsertDocument(ctx, "a", crashV2.text, "", crashV2.md, nil)
			return err
		}},
		{"delete", func(ctx context.Context, ix *LocalDocumentIndex) error {
			return ix.DeleteDocument(ctx, "a")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var st *landedStorage
			env := newCreatedDocEnv(t, func(cfg *LocalDocumentIndexConfig) {
				st = &landedStorage{memTestStorage: cfg.Storage.(*memTestStorage)}
				cfg.Storage = st
			})
			mustUpsertDoc(t, env.ix, "a", crashV1.text, "", crashV1.md)
			mustUpsertDoc(t, env.ix, "b", crashB.text, "", crashB.md)
			st.failAfter = func(p string) bool { return p == env.path("index.json") }
			if err := tc.op(ctx, env.ix); !errors.Is(err, errDocTestLanded) {
				t.Fatalf("op with the index write failing: %v, want %v", err, errDocTestLanded)
			}
			st.failAfter = nil

			reopened := env.open(t)
			cat, err := reopened.catalog(ctx, "check", "")
			if err != nil {
				t.Fatal(err)
			}
			for uri, hash := range cat.URIToHash {
				if hash == "" {
					continue
				}
				if id := cat.URIToID[uri]; len(docChunks(t, reopened, id)) == 0 {
					t.Errorf("catalog entry %q → %q has a content hash but no chunk in the index", uri, id)
				}
			}
			// Upserting the first version again must give it chunks.
			doc := mustUpsertDoc(t, reopened, "a", crashV1.text, "", crashV1.md)
			if len(docChunks(t, reopened, doc.ID())) == 0 {
				t.Errorf("document a has no chunk after upserting it again")
			}
		})
	}
}

// A catalog write that reports a failure may still have landed: a cancel
// puts the committed catalog back, so the document keeps its old version
// (text and chunks) rather than naming a version whose files the cancel
// removed.
func TestCancelledCommitRestoresTheCatalogWhenTheCatalogWriteLanded(t *testing.T) {
	ctx := context.Background()
	var st *landedStorage
	env := newCreatedDocEnv(t, func(cfg *LocalDocumentIndexConfig) {
		st = &landedStorage{memTestStorage: cfg.Storage.(*memTestStorage)}
		cfg.Storage = st
	})
	old := mustUpsertDoc(t, env.ix, "a", crashV1.text, "", crashV1.md)
	st.failAfter = func(p string) bool { return p == env.path("catalog.json") }
	if _, err := env.ix.UpsertDocument(ctx, "a", crashV2.text, "", crashV2.md, nil); !errors.Is(err, errDocTestLanded) {
		t.Fatalf("upsert with the catalog write failing: %v, want %v", err, errDocTestLanded)
	}
	st.failAfter = nil

	reopened := env.open(t)
	id, ok, err := reopened.GetDocumentID(ctx, "a")
	if err != nil || !ok {
		t.Fatalf("GetDocumentID(a) = %q, %v, %v", id, ok, err)
	}
	if id != old.ID() {
		t.Errorf("document a is %q after the failed upsert, want its old version %q", id, old.ID())
	}
	if text, err := reopened.document(id, "a").LoadText(ctx); err != nil || text != crashV1.text {
		t.Errorf("text of document a = %q, %v, want %q", text, err, crashV1.text)
	}
	if len(docChunks(t, reopened, id)) == 0 {
		t.Errorf("document a has no chunk")
	}
}

// A document file whose failed write may have landed is removed when the
// commit is cancelled: a failed upsert leaves no file behind.
func TestFailedUpsertLeavesNoFileWhenAFileWriteLanded(t *testing.T) {
	ctx := context.Background()
	var st *landedStorage
	env := newCreatedDocEnv(t, func(cfg *LocalDocumentIndexConfig) {
		st = &landedStorage{memTestStorage: cfg.Storage.(*memTestStorage)}
		cfg.Storage = st
	})
	before := env.st.fileNames(docTestFolder)
	st.failAfter = func(p string) bool { return strings.HasSuffix(p, ".txt") }
	if _, err := env.ix.UpsertDocument(ctx, "a", crashV1.text, "", crashV1.md, nil); !errors.Is(err, errDocTestLanded) {
		t.Fatalf("upsert with the text write failing: %v, want %v", err, errDocTestLanded)
	}
	st.failAfter = nil
	if after := env.st.fileNames(docTestFolder); !slices.Equal(after, before) {
		t.Errorf("files after the failed upsert = %q, want %q", after, before)
	}
}

// A catalog count read from a file that disagrees with its map — negative,
// absurd, or merely off — is recomputed from the map.
func TestCatalogCountIsRecomputed(t *testing.T) {
	for _, count := range []int{-5, 1 << 40, 0, 3} {
		c, err := checkCatalog(DocumentCatalog{Version: 1, Count: count,
			URIToID: map[string]string{"a": "1", "b": "2"}, IDToURI: map[string]string{"1": "a", "2": "b"}})
		if err != nil || c.Count != 2 {
			t.Errorf("count %d read as %d, %v; want 2", count, c.Count, err)
		}
	}
}

// Vacuum reached through the embedded LocalIndex of a document index keeps
// the documents' text and metadata files: they look like orphan side-cars
// to an index that knows nothing of the catalog.
func TestVacuumThroughTheEmbeddedIndexKeepsDocumentFiles(t *testing.T) {
	ctx := context.Background()
	env := newCreatedDocEnv(t, nil)
	doc := mustUpsertDoc(t, env.ix, "a.md", "some text", "", Metadata{"k": "v"})
	orphan := "0000aaaa-0000-4000-8000-00000000000f.txt"
	env.st.put(env.path(orphan), []byte("x"))
	rep, err := env.ix.LocalIndex.Vacuum(ctx)
	if err != nil || len(rep.Documents) != 1 || rep.Documents[0] != orphan {
		t.Fatalf("vacuum: %+v, %v", rep, err)
	}
	for _, name := range []string{doc.ID() + ".txt", doc.ID() + ".json"} {
		if _, ok := env.st.file(env.path(name)); !ok {
			t.Errorf("%s was removed", name)
		}
	}
}
