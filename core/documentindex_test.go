package core

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio/core/internal/meta"

	"github.com/foliovec/folio/core/internal/render"
	"github.com/foliovec/folio/core/internal/testtok"
)

// Vectra's src/LocalDocumentIndex.spec.ts, ported: the behaviours are
// Vectra's, observed through files and results (Go cannot patch methods),
// except the documented fixes, each tested by its own name.

func TestDocumentIndexConstructor(t *testing.T) {
	t.Run("a tokenizer is required in core", func(t *testing.T) {
		_, err := NewLocalDocumentIndex(LocalDocumentIndexConfig{FolderPath: "x", IndexOptions: IndexOptions{Storage: newMemTestStorage(), Codec: jsonTestCodec{}}})
		if !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("err = %v, want ErrInvalidArgument", err)
		}
	})
	t.Run("storage and codec are required in core", func(t *testing.T) {
		_, err := NewLocalDocumentIndex(LocalDocumentIndexConfig{FolderPath: "x", Tokenizer: testtok.Char{}, IndexOptions: IndexOptions{Codec: jsonTestCodec{}}})
		if !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("err = %v, want ErrInvalidArgument", err)
		}
	})
	t.Run("given tokenizer and embeddings are used; none means no embeddings", func(t *testing.T) {
		env := newDocTestEnv(t, nil)
		if env.ix.Tokenizer() != (testtok.Char{}) || env.ix.Embeddings() != env.emb {
			t.Fatal("getters do not return the configured tokenizer and embeddings")
		}
		env2 := newDocTestEnv(t, func(c *LocalDocumentIndexConfig) { c.Embeddings = nil })
		if env2.ix.Embeddings() != nil {
			t.Fatal("Embeddings() is not nil")
		}
	})
	t.Run("the chunking config's tokenizer is used when none is given", func(t *testing.T) {
		ix, err := NewLocalDocumentIndex(LocalDocumentIndexConfig{
			FolderPath:     "x",
			ChunkingConfig: ChunkingConfig{ChunkSize: 10, Tokenizer: testtok.Pair{}},
			IndexOptions:   IndexOptions{Storage: newMemTestStorage(), Codec: jsonTestCodec{}},
		})
		if err != nil || ix.Tokenizer() != (testtok.Pair{}) {
			t.Fatalf("tokenizer %v, err %v", ix.Tokenizer(), err)
		}
	})
	t.Run("an invalid chunking config is refused", func(t *testing.T) {
		_, err := NewLocalDocumentIndex(LocalDocumentIndexConfig{
			FolderPath:     "x",
			Tokenizer:      testtok.Char{},
			ChunkingConfig: ChunkingConfig{ChunkSize: 4, ChunkOverlap: 5},
			IndexOptions:   IndexOptions{Storage: newMemTestStorage(), Codec: jsonTestCodec{}},
		})
		if !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("err = %v, want ErrInvalidArgument", err)
		}
	})
	t.Run("a zero chunking config is the document default", func(t *testing.T) {
		env := newDocTestEnv(t, func(c *LocalDocumentIndexConfig) { c.ChunkingConfig = ChunkingConfig{} })
		want := DefaultDocumentChunkingConfig()
		want.Tokenizer = testtok.Char{}
		if !textSplitterConfigEqual(env.ix.chunking, want) {
			t.Fatalf("chunking %+v", env.ix.chunking)
		}
	})
}

func textSplitterConfigEqual(a, b TextSplitterConfig) bool {
	return a.ChunkSize == b.ChunkSize && a.ChunkOverlap == b.ChunkOverlap && a.KeepSeparators == b.KeepSeparators &&
		slices.Equal(a.Separators, b.Separators) && a.DocType == b.DocType && a.Tokenizer == b.Tokenizer
}

func TestIsCatalogCreated(t *testing.T) {
	ctx := context.Background()
	env := newDocTestEnv(t, nil)
	if ok, err := env.ix.IsCatalogCreated(ctx); ok || err != nil {
		t.Fatalf("IsCatalogCreated = %v, %v before any catalog", ok, err)
	}
	env.st.put(env.path("catalog.json"), []byte("{}"))
	if ok, err := env.ix.IsCatalogCreated(ctx); !ok || err != nil {
		t.Fatalf("IsCatalogCreated = %v, %v with folder/catalog.json", ok, err)
	}
	pb := newDocTestEnv(t, func(c *LocalDocumentIndexConfig) { c.Codec = jsonTestCodec{ext: ".pb"} })
	pb.st.put(pb.path("catalog.json"), []byte("{}"))
	if ok, _ := pb.ix.IsCatalogCreated(ctx); ok {
		t.Fatal("a protobuf index looks for catalog.json")
	}
	pb.st.put(pb.path("catalog.pb"), []byte("{}"))
	if ok, _ := pb.ix.IsCatalogCreated(ctx); !ok {
		t.Fatal("a protobuf index does not find catalog.pb")
	}
}

func TestCatalogLoading(t *testing.T) {
	ctx := context.Background()
	t.Run("a loaded catalog is not read again", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		created := env.st.readCount(env.path("catalog.json"))
		for range 3 {
			if _, _, err := env.ix.GetDocumentID(ctx, "x"); err != nil {
				t.Fatal(err)
			}
		}
		if n := env.st.readCount(env.path("catalog.json")) - created; n != 0 {
			t.Fatalf("catalog read %d times after CreateIndex made it", n)
		}
		ix := env.open(t)
		for range 3 {
			if _, _, err := ix.GetDocumentID(ctx, "x"); err != nil {
				t.Fatal(err)
			}
		}
		if n := env.st.readCount(env.path("catalog.json")) - created; n != 1 {
			t.Fatalf("catalog read %d times, want 1", n)
		}
	})
	t.Run("an existing catalog is loaded", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		env.st.put(env.path("catalog.json"), []byte(`{"version":1,"count":2,"uriToId":{"a":"id1"},"idToUri":{"id1":"a"}}`))
		ix := env.open(t)
		id, ok, err := ix.GetDocumentID(ctx, "a")
		if id != "id1" || !ok || err != nil {
			t.Fatalf("GetDocumentID = %q, %v, %v", id, ok, err)
		}
		st, _ := ix.GetCatalogStats(ctx)
		if st.Documents != 1 || st.Version != 1 { // the stored count 2 disagrees with the map: recomputed
			t.Fatalf("stats %+v", st)
		}
	})
	t.Run("a missing catalog is created and written on first read", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		env.st.remove(env.path("catalog.json"))
		ix := env.open(t)
		if _, _, err := ix.GetDocumentURI(ctx, "x"); err != nil {
			t.Fatal(err)
		}
		raw, ok := env.st.file(env.path("catalog.json"))
		if !ok {
			t.Fatal("no catalog written")
		}
		var c map[string]any
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		if c["version"] != 1.0 || c["count"] != 0.0 || len(c["uriToId"].(map[string]any)) != 0 || len(c["idToUri"].(map[string]any)) != 0 {
			t.Fatalf("initial catalog %s", raw)
		}
		if _, has := c["uriToHash"]; has {
			t.Fatalf("initial catalog has uriToHash: %s", raw)
		}
	})
	t.Run("failing to create the catalog is an error", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		env.st.remove(env.path("catalog.json"))
		env.st.failWrite = func(p string) error {
			if strings.HasSuffix(p, "catalog.json") {
				return errors.New("disk error")
			}
			return nil
		}
		_, _, err := env.open(t).GetDocumentID(ctx, "x")
		if err == nil || !strings.Contains(err.Error(), "create document catalog") || !strings.Contains(err.Error(), "disk error") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a missing index is ErrIndexNotFound", func(t *testing.T) {
		env := newDocTestEnv(t, nil)
		if _, _, err := env.ix.GetDocumentID(ctx, "x"); !errors.Is(err, ErrIndexNotFound) {
			t.Fatalf("err = %v", err)
		}
		if _, err := env.ix.UpsertDocument(ctx, "u", "text", "", nil, nil); !errors.Is(err, ErrIndexNotFound) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("fix: catalog ids that leave the folder are corrupt", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		env.st.put(env.path("catalog.json"), []byte(`{"version":1,"count":1,"uriToId":{"a":"../x"},"idToUri":{"../x":"a"}}`))
		if _, _, err := env.open(t).GetDocumentID(ctx, "a"); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("err = %v, want ErrCorrupt", err)
		}
	})
}

func TestGetDocumentIDAndURI(t *testing.T) {
	ctx := context.Background()
	env := newCreatedDocEnv(t, nil)
	doc := mustUpsertDoc(t, env.ix, "doc1", "some text", "", nil)
	tests := []struct {
		name string
		fn   func() (string, bool, error)
		want string
		ok   bool
	}{
		{"known uri gives its id", func() (string, bool, error) { return env.ix.GetDocumentID(ctx, "doc1") }, doc.ID(), true},
		{"unknown uri gives nothing", func() (string, bool, error) { return env.ix.GetDocumentID(ctx, "nope") }, "", false},
		{"known id gives its uri", func() (string, bool, error) { return env.ix.GetDocumentURI(ctx, doc.ID()) }, "doc1", true},
		{"unknown id gives nothing", func() (string, bool, error) { return env.ix.GetDocumentURI(ctx, "nope") }, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := tc.fn()
			if got != tc.want || ok != tc.ok || err != nil {
				t.Fatalf("got %q, %v, %v; want %q, %v", got, ok, err, tc.want, tc.ok)
			}
		})
	}
}

func TestGetCatalogStatsMergesCatalogAndIndex(t *testing.T) {
	ctx := context.Background()
	env := newDocTestEnv(t, nil)
	if err := env.ix.CreateIndex(ctx, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"a"}}}); err != nil {
		t.Fatal(err)
	}
	mustUpsertDoc(t, env.ix, "one", strings.Repeat("word ", 10), "", Metadata{"a": "x"})
	mustUpsertDoc(t, env.ix, "two", "short", "", nil)
	st, err := env.ix.GetCatalogStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	items, _ := env.ix.ListItems(ctx)
	if st.Version != 1 || st.Documents != 2 || st.Chunks != len(items) || st.Chunks < 3 || !slices.Equal(st.MetadataConfig.Indexed, []string{"a"}) {
		t.Fatalf("stats %+v with %d items", st, len(items))
	}
}

func TestDeleteDocument(t *testing.T) {
	ctx := context.Background()
	t.Run("an unknown uri changes nothing", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		writes := len(env.st.writes)
		if err := env.ix.DeleteDocument(ctx, "missing"); err != nil {
			t.Fatal(err)
		}
		if len(env.st.writes) != writes || len(env.st.deletes) != 0 {
			t.Fatal("deleting an unknown document wrote or deleted files")
		}
	})
	t.Run("chunks, catalog entries, hash and files go", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		doc := mustUpsertDoc(t, env.ix, "doc://one", "hello world, and more text to split", "", Metadata{"k": "v"})
		keep := mustUpsertDoc(t, env.ix, "doc://two", "another document", "", nil)
		if err := env.ix.DeleteDocument(ctx, "doc://one"); err != nil {
			t.Fatal(err)
		}
		if n := len(docChunks(t, env.ix, doc.ID())); n != 0 {
			t.Fatalf("%d chunks left", n)
		}
		if len(docChunks(t, env.ix, keep.ID())) == 0 {
			t.Fatal("the other document lost its chunks")
		}
		for _, name := range []string{doc.ID() + ".txt", doc.ID() + ".json"} {
			if _, ok := env.st.file(env.path(name)); ok {
				t.Fatalf("%s still exists", name)
			}
		}
		c := env.ix.cat.Load()
		if _, ok := c.URIToID["doc://one"]; ok || c.IDToURI[doc.ID()] != "" || c.URIToHash["doc://one"] != "" || c.Count != 1 {
			t.Fatalf("catalog %+v", c)
		}
		// And on disk.
		reopened := env.open(t)
		if _, ok, _ := reopened.GetDocumentID(ctx, "doc://one"); ok {
			t.Fatal("the saved catalog still has the document")
		}
	})
	t.Run("a failed commit keeps the document", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		doc := mustUpsertDoc(t, env.ix, "doc://err", "some text here", "", nil)
		env.st.failWrite = func(p string) error {
			if strings.HasSuffix(p, "index.json") {
				return errors.New("delete error")
			}
			return nil
		}
		err := env.ix.DeleteDocument(ctx, "doc://err")
		if err == nil || !strings.Contains(err.Error(), `delete document "doc://err"`) || !strings.Contains(err.Error(), "delete error") {
			t.Fatalf("err = %v", err)
		}
		env.st.failWrite = nil
		for _, ix := range []*LocalDocumentIndex{env.ix, env.open(t)} {
			if id, ok, _ := ix.GetDocumentID(ctx, "doc://err"); !ok || id != doc.ID() {
				t.Fatal("the document left the catalog")
			}
			if len(docChunks(t, ix, doc.ID())) == 0 {
				t.Fatal("the document lost its chunks")
			}
			if text, err := ix.document(doc.ID(), "").LoadText(ctx); err != nil || text != "some text here" {
				t.Fatalf("text %q, %v", text, err)
			}
		}
	})
	t.Run("failing to remove the dropped files is no error: the document is gone, the files left for Vacuum", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		doc := mustUpsertDoc(t, env.ix, "doc://bad-delete", "text", "", Metadata{"k": "v"})
		env.st.failDelete = func(p string) error {
			if strings.HasSuffix(p, ".txt") || strings.HasSuffix(p, doc.ID()+".json") {
				return errors.New("delete error")
			}
			return nil
		}
		if err := env.ix.DeleteDocument(ctx, "doc://bad-delete"); err != nil {
			t.Fatalf("files that cannot be removed failed the delete: %v", err)
		}
		if _, ok, _ := env.ix.GetDocumentID(ctx, "doc://bad-delete"); ok {
			t.Fatal("the document is still in the catalog")
		}
		env.st.failDelete = nil
		rep, err := env.ix.Vacuum(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(rep.Documents, doc.ID()+".txt") {
			t.Fatalf("Vacuum removed %v, want the text file left behind", rep.Documents)
		}
		if _, ok := env.st.file(env.path(doc.ID() + ".txt")); ok {
			t.Fatal("text file not removed by Vacuum")
		}
	})
}

func TestUpsertDocument(t *testing.T) {
	ctx := context.Background()
	t.Run("no embeddings model is ErrEmbeddingsNotConfigured", func(t *testing.T) {
		env := newCreatedDocEnv(t, func(c *LocalDocumentIndexConfig) { c.Embeddings = nil })
		if _, err := env.ix.UpsertDocument(ctx, "uri", "text", "", nil, nil); !errors.Is(err, ErrEmbeddingsNotConfigured) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("writes the text, the metadata and the catalog entry", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		md := Metadata{"author": "test"}
		doc := mustUpsertDoc(t, env.ix, "file.md", "content here", "", md)
		if raw, ok := env.st.file(env.path(doc.ID() + ".txt")); !ok || string(raw) != "content here" {
			t.Fatalf("text file %q, %v", raw, ok)
		}
		if raw, ok := env.st.file(env.path(doc.ID() + ".json")); !ok || string(raw) != `{"author":"test"}` {
			t.Fatalf("metadata file %q, %v", raw, ok)
		}
		c := env.ix.cat.Load()
		hash, _ := meta.ContentHash("content here", "", md)
		if c.Count != 1 || c.URIToID["file.md"] != doc.ID() || c.IDToURI[doc.ID()] != "file.md" || c.URIToHash["file.md"] != hash {
			t.Fatalf("catalog %+v", c)
		}
		if doc.URI() != "file.md" || doc.FolderPath() != docTestFolder || !meta.ValidDocumentID(doc.ID()) {
			t.Fatalf("document %q %q %q", doc.ID(), doc.URI(), doc.FolderPath())
		}
	})
	t.Run("no metadata, no metadata file", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		doc := mustUpsertDoc(t, env.ix, "u", "text", "", nil)
		if _, ok := env.st.file(env.path(doc.ID() + ".json")); ok {
			t.Fatal("metadata file written")
		}
	})
	t.Run("chunk items carry documentId, UTF-16 positions and the metadata", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		text := "📚 first part of it\n\nsecond part é here\n\nthird"
		doc := mustUpsertDoc(t, env.ix, "u.txt", text, "", Metadata{"lang": "en", "n": 3})
		chunks := docChunks(t, env.ix, doc.ID())
		split, _ := NewTextSplitter(TextSplitterConfig{ChunkSize: 16, KeepSeparators: true, DocType: "txt", Tokenizer: testtok.Char{}})
		want := split.Split(text)
		if len(chunks) != len(want) || len(want) < 2 {
			t.Fatalf("%d chunks, want %d", len(chunks), len(want))
		}
		for i, c := range chunks {
			md := c.Metadata
			if md["startPos"] != float64(want[i].StartPos) || md["endPos"] != float64(want[i].EndPos) || md["lang"] != "en" || md["n"] != 3.0 {
				t.Fatalf("chunk %d metadata %v, want positions %d-%d", i, md, want[i].StartPos, want[i].EndPos)
			}
		}
	})
	t.Run("the docType comes from the uri after its last dot", func(t *testing.T) {
		env := newCreatedDocEnv(t, func(c *LocalDocumentIndexConfig) {
			c.ChunkingConfig = ChunkingConfig{ChunkSize: 30}
		})
		text := "def f():\n    return 1\n\ndef g():\n    return 2\n\nclass C:\n    pass\n"
		doc := mustUpsertDoc(t, env.ix, "dir.v2/Script.PY", text, "", nil)
		got := docChunks(t, env.ix, doc.ID())
		split, _ := NewTextSplitter(TextSplitterConfig{ChunkSize: 30, KeepSeparators: true, DocType: "py", Tokenizer: testtok.Char{}})
		want := split.Split(text)
		other, _ := NewTextSplitter(TextSplitterConfig{ChunkSize: 30, KeepSeparators: true, Tokenizer: testtok.Char{}})
		if slices.EqualFunc(want, other.Split(text), func(a, b TextChunk) bool { return a.StartPos == b.StartPos }) {
			t.Fatal("test text splits alike as py and as default")
		}
		if len(got) != len(want) {
			t.Fatalf("%d chunks, want %d (py separators)", len(got), len(want))
		}
		for i := range got {
			if got[i].Metadata["startPos"] != float64(want[i].StartPos) {
				t.Fatalf("chunk %d starts at %v, want %d", i, got[i].Metadata["startPos"], want[i].StartPos)
			}
		}
	})
	t.Run("chunk texts are embedded with newlines as spaces", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		mustUpsertDoc(t, env.ix, "u", "line one\nline two", "", nil)
		for _, in := range env.emb.lastCall() {
			if strings.Contains(in, "\n") {
				t.Fatalf("embedded %q", in)
			}
		}
	})
	t.Run("long text is embedded in batches of at most MaxTokens tokens", func(t *testing.T) {
		env := newCreatedDocEnv(t, func(c *LocalDocumentIndexConfig) {
			c.ChunkingConfig = ChunkingConfig{ChunkSize: 4}
		})
		env.emb.maxTokens = 10
		mustUpsertDoc(t, env.ix, "file.txt", strings.Repeat("a ", 30), "", nil)
		if len(env.emb.calls) < 2 {
			t.Fatalf("%d embeddings calls", len(env.emb.calls))
		}
		for _, call := range env.emb.calls {
			n := 0
			for _, in := range call {
				n += len([]rune(in))
			}
			if n > 10 || len(call) == 0 {
				t.Fatalf("batch %q has %d tokens", call, n)
			}
		}
	})
	t.Run("fix: a chunk over MaxTokens goes alone, never after an empty batch", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		env.emb.maxTokens = 5
		mustUpsertDoc(t, env.ix, "u", "0123456789abcdef\n\nxy", "", nil)
		for _, call := range env.emb.calls {
			if len(call) == 0 {
				t.Fatal("an empty batch was sent")
			}
		}
		if len(env.emb.calls) != 2 || len(env.emb.calls[0]) != 1 {
			t.Fatalf("calls %q", env.emb.calls)
		}
	})
	t.Run("empty text is registered with no chunks and no embeddings call", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		doc := mustUpsertDoc(t, env.ix, "empty", "   \n", "", nil)
		if env.emb.callCount() != 0 || len(docChunks(t, env.ix, doc.ID())) != 0 {
			t.Fatal("empty text was embedded")
		}
		if id, ok, _ := env.ix.GetDocumentID(ctx, "empty"); !ok || id != doc.ID() {
			t.Fatal("empty document not registered")
		}
	})
	t.Run("embedding errors and failed statuses are *EmbeddingsError", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		env.emb.fail = []docTestFailure{
			{err: &EmbeddingsError{Status: EmbeddingsFailed, Message: "fail"}},
			{resp: EmbeddingsResponse{Status: EmbeddingsRateLimited, Message: "bad"}},
			{resp: EmbeddingsResponse{Status: EmbeddingsSuccess}},
		}
		for i, want := range []error{ErrEmbeddingsFailed, ErrRateLimited, ErrEmbeddingsFailed} {
			_, err := env.ix.UpsertDocument(ctx, "u", "t", "", nil, nil)
			var ee *EmbeddingsError
			if !errors.Is(err, want) || !errors.As(err, &ee) || !strings.Contains(err.Error(), "generate embeddings") {
				t.Fatalf("call %d: err = %v, want %v", i, err, want)
			}
		}
	})
	t.Run("a cancelled context is returned unchanged", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		cctx, cancel := context.WithCancel(ctx)
		env.emb.override = func([]string) (EmbeddingsResponse, error) {
			cancel()
			return EmbeddingsResponse{Status: EmbeddingsCancelled}, &EmbeddingsError{Status: EmbeddingsCancelled, Err: context.Canceled}
		}
		if _, err := env.ix.UpsertDocument(cctx, "u", "text", "", nil, nil); err != context.Canceled {
			t.Fatalf("err = %v, want context.Canceled itself", err)
		}
	})
	t.Run("invalid metadata is ErrInvalidArgument", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		for _, md := range []Metadata{{"documentId": "x"}, {"startPos": 1}, {"endPos": 2}, {"bad": []int{1}}} {
			if _, err := env.ix.UpsertDocument(ctx, "u", "text", "", md, nil); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("metadata %v: err = %v", md, err)
			}
		}
		if env.emb.callCount() != 0 {
			t.Fatal("embedded before validating metadata")
		}
	})
	t.Run("a failed chunk insert is an error naming the document", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		env.emb.override = func(inputs []string) (EmbeddingsResponse, error) {
			out := make([][]float32, len(inputs))
			for i := range out {
				out[i] = []float32{float32(nanValue())}
			}
			return EmbeddingsResponse{Status: EmbeddingsSuccess, Output: out}, nil
		}
		_, err := env.ix.UpsertDocument(ctx, "u", "t", "", nil, nil)
		if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), `upsert document "u"`) {
			t.Fatalf("err = %v", err)
		}
	})
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

func TestFixUpsertReplacesTheOldVersionInOneCommit(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T) (*docTestEnv, *LocalDocument) {
		env := newCreatedDocEnv(t, nil)
		doc := mustUpsertDoc(t, env.ix, "doc", "the old version of the text", "", Metadata{"v": 1})
		return env, doc
	}
	// intact checks that the old version is what both the open index and
	// a reopened one see, and that no new file was left behind.
	intact := func(t *testing.T, env *docTestEnv, old *LocalDocument) {
		t.Helper()
		for _, ix := range []*LocalDocumentIndex{env.ix, env.open(t)} {
			id, ok, err := ix.GetDocumentID(ctx, "doc")
			if err != nil || !ok || id != old.ID() {
				t.Fatalf("id %q, %v, %v; want the old %q", id, ok, err, old.ID())
			}
			if len(docChunks(t, ix, old.ID())) == 0 {
				t.Fatal("old chunks gone")
			}
			text, err := ix.document(id, "doc").LoadText(ctx)
			if err != nil || text != "the old version of the text" {
				t.Fatalf("text %q, %v", text, err)
			}
			items, _ := ix.ListItems(ctx)
			for _, it := range items {
				if it.Metadata["documentId"] != old.ID() {
					t.Fatalf("item of another document %v", it.Metadata)
				}
			}
		}
		want := []string{"catalog.json", old.ID() + ".json", old.ID() + ".txt", "index.json"}
		slices.Sort(want)
		if got := env.st.fileNames(docTestFolder); !slices.Equal(got, want) {
			t.Fatalf("files %v, want %v", got, want)
		}
	}
	t.Run("an embedding failure leaves the old version", func(t *testing.T) {
		env, old := setup(t)
		env.emb.fail = []docTestFailure{{err: &EmbeddingsError{Status: EmbeddingsFailed, Message: "down"}}}
		if _, err := env.ix.UpsertDocument(ctx, "doc", "a new version", "", nil, nil); !errors.Is(err, ErrEmbeddingsFailed) {
			t.Fatalf("err = %v", err)
		}
		intact(t, env, old)
	})
	t.Run("a failed text write leaves the old version", func(t *testing.T) {
		env, old := setup(t)
		env.st.failWrite = func(p string) error {
			if strings.HasSuffix(p, ".txt") {
				return errors.New("disk full")
			}
			return nil
		}
		if _, err := env.ix.UpsertDocument(ctx, "doc", "a new version", "", nil, nil); err == nil {
			t.Fatal("no error")
		}
		env.st.failWrite = nil
		intact(t, env, old)
	})
	t.Run("a failed index write leaves the old version and removes the new files", func(t *testing.T) {
		env, old := setup(t)
		env.st.failWrite = func(p string) error {
			if strings.HasSuffix(p, "index.json") {
				return errors.New("disk full")
			}
			return nil
		}
		if _, err := env.ix.UpsertDocument(ctx, "doc", "a new version", "", Metadata{"v": 2}, nil); err == nil {
			t.Fatal("no error")
		}
		env.st.failWrite = nil
		intact(t, env, old)
	})
	t.Run("a failed catalog write leaves the old version", func(t *testing.T) {
		env, old := setup(t)
		env.st.failWrite = func(p string) error {
			if strings.HasSuffix(p, "catalog.json") {
				return errors.New("disk full")
			}
			return nil
		}
		if _, err := env.ix.UpsertDocument(ctx, "doc", "a new version", "", nil, nil); err == nil {
			t.Fatal("no error")
		}
		env.st.failWrite = nil
		// The catalog could not be put back either, so the new version
		// may be the one on disk: its text stays until Vacuum finds
		// that nothing refers to it.
		rep, err := env.ix.Vacuum(ctx)
		if err != nil || len(rep.Documents) != 1 || !strings.HasSuffix(rep.Documents[0], ".txt") {
			t.Fatalf("vacuum: %+v, %v", rep, err)
		}
		intact(t, env, old)
	})
	t.Run("a successful replacement swaps everything and removes the old files", func(t *testing.T) {
		env, old := setup(t)
		doc, err := env.ix.UpsertDocument(ctx, "doc", "a new version", "", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if doc.ID() == old.ID() {
			t.Fatal("a changed document kept its id: its new files would overwrite the old ones")
		}
		if len(docChunks(t, env.ix, old.ID())) != 0 || len(docChunks(t, env.ix, doc.ID())) == 0 {
			t.Fatal("chunks not swapped")
		}
		want := []string{"catalog.json", doc.ID() + ".txt", "index.json"}
		slices.Sort(want)
		if got := env.st.fileNames(docTestFolder); !slices.Equal(got, want) {
			t.Fatalf("files %v, want %v", got, want)
		}
		if st, _ := env.ix.GetCatalogStats(ctx); st.Documents != 1 {
			t.Fatalf("stats %+v", st)
		}
	})
}

func TestSkipIfUnchanged(t *testing.T) {
	ctx := context.Background()
	upsert := func(t *testing.T, env *docTestEnv, text, docType string, md Metadata, force bool) *LocalDocument {
		t.Helper()
		doc, err := env.ix.UpsertDocument(ctx, "doc", text, docType, md, &UpsertDocumentOptions{Force: force})
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	tests := []struct {
		name    string
		text    string
		docType string
		md      Metadata
		force   bool
		embeds  bool
	}{
		{"identical text, metadata and docType: no embedding, same id", "body text", "md", Metadata{"a": 1, "b": "x"}, false, false},
		{"metadata key order does not matter", "body text", "md", Metadata{"b": "x", "a": 1.0}, false, false},
		{"a text change re-embeds", "other body", "md", Metadata{"a": 1, "b": "x"}, false, true},
		{"a metadata change re-embeds", "body text", "md", Metadata{"a": 2, "b": "x"}, false, true},
		{"a docType change re-embeds", "body text", "txt", Metadata{"a": 1, "b": "x"}, false, true},
		{"force re-embeds", "body text", "md", Metadata{"a": 1, "b": "x"}, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newCreatedDocEnv(t, nil)
			first := upsert(t, env, "body text", "md", Metadata{"a": 1, "b": "x"}, false)
			calls, writes := env.emb.callCount(), len(env.st.writes)
			second := upsert(t, env, tc.text, tc.docType, tc.md, tc.force)
			embedded := env.emb.callCount() > calls
			if embedded != tc.embeds {
				t.Fatalf("embedded = %v, want %v", embedded, tc.embeds)
			}
			if !tc.embeds && (second.ID() != first.ID() || len(env.st.writes) != writes) {
				t.Fatal("an unchanged document was rewritten")
			}
		})
	}
	t.Run("a catalog without hashes re-embeds once, then skips", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		upsert(t, env, "body", "", nil, false)
		// Strip the hashes, as a pre-0.15 catalog has none.
		raw, _ := env.st.file(env.path("catalog.json"))
		var c map[string]any
		_ = json.Unmarshal(raw, &c)
		delete(c, "uriToHash")
		b, _ := json.Marshal(c)
		env.st.put(env.path("catalog.json"), b)
		env.ix = env.open(t)
		calls := env.emb.callCount()
		upsert(t, env, "body", "", nil, false)
		upsert(t, env, "body", "", nil, false)
		if got := env.emb.callCount() - calls; got != 1 {
			t.Fatalf("%d embeddings calls, want 1", got)
		}
	})
	t.Run("deleting a document removes its hash", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		upsert(t, env, "body", "", nil, false)
		if err := env.ix.DeleteDocument(ctx, "doc"); err != nil {
			t.Fatal(err)
		}
		if _, ok := env.ix.cat.Load().URIToHash["doc"]; ok {
			t.Fatal("hash kept")
		}
		calls := env.emb.callCount()
		upsert(t, env, "body", "", nil, false)
		if env.emb.callCount() == calls {
			t.Fatal("a deleted document was skipped as unchanged")
		}
	})
}

func TestListDocuments(t *testing.T) {
	ctx := context.Background()
	t.Run("no chunks, no documents", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		docs, err := env.ix.ListDocuments(ctx)
		if err != nil || len(docs) != 0 {
			t.Fatalf("docs %v, err %v", docs, err)
		}
	})
	t.Run("chunks are grouped per document, each scored 1", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		a := mustUpsertDoc(t, env.ix, "doc://1", "first document with enough text to split", "", nil)
		b := mustUpsertDoc(t, env.ix, "doc://2", "second", "", nil)
		mustUpsertDoc(t, env.ix, "doc://3", "", "", nil) // no chunks: not listed
		docs, err := env.ix.ListDocuments(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != 2 || docs[0].ID() != a.ID() || docs[0].URI() != "doc://1" || docs[1].ID() != b.ID() {
			t.Fatalf("docs %+v", docs)
		}
		if len(docs[0].Chunks) != len(docChunks(t, env.ix, a.ID())) || docs[0].Score != 1 {
			t.Fatalf("doc 1: %d chunks, score %v", len(docs[0].Chunks), docs[0].Score)
		}
	})
}

func TestDocumentURIs(t *testing.T) {
	ctx := context.Background()
	env := newCreatedDocEnv(t, nil)
	if uris, err := env.ix.DocumentURIs(ctx); err != nil || len(uris) != 0 {
		t.Fatalf("empty index: %v, %v", uris, err)
	}
	mustUpsertDoc(t, env.ix, "doc://b", "second", "", nil)
	mustUpsertDoc(t, env.ix, "doc://a", "first", "", nil)
	mustUpsertDoc(t, env.ix, "doc://c", "", "", nil) // no chunks, still listed
	if err := env.ix.DeleteDocument(ctx, "doc://b"); err != nil {
		t.Fatal(err)
	}
	uris, err := env.ix.DocumentURIs(ctx)
	if err != nil || !slices.Equal(uris, []string{"doc://a", "doc://c"}) {
		t.Fatalf("DocumentURIs = %v, %v", uris, err)
	}
	missing, err := NewLocalDocumentIndex(LocalDocumentIndexConfig{FolderPath: "nowhere", Tokenizer: env.ix.Tokenizer(), IndexOptions: IndexOptions{Storage: env.ix.Storage(), Codec: env.ix.Codec()}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := missing.DocumentURIs(ctx); !errors.Is(err, ErrIndexNotFound) {
		t.Fatalf("missing index: %v", err)
	}
}

func TestQueryDocuments(t *testing.T) {
	ctx := context.Background()
	t.Run("no embeddings model is ErrEmbeddingsNotConfigured", func(t *testing.T) {
		env := newCreatedDocEnv(t, func(c *LocalDocumentIndexConfig) { c.Embeddings = nil })
		if _, err := env.ix.QueryDocuments(ctx, "q", nil); !errors.Is(err, ErrEmbeddingsNotConfigured) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("the query is embedded with newlines as spaces", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		mustUpsertDoc(t, env.ix, "u", "a b c", "", nil)
		if _, err := env.ix.QueryDocuments(ctx, "a\nb\nc", nil); err != nil {
			t.Fatal(err)
		}
		if got := env.emb.lastCall(); !slices.Equal(got, []string{"a b c"}) {
			t.Fatalf("embedded %q", got)
		}
	})
	t.Run("maxChunks defaults to 50 chunks in all", func(t *testing.T) {
		env := newCreatedDocEnv(t, func(c *LocalDocumentIndexConfig) {
			c.ChunkingConfig = ChunkingConfig{ChunkSize: 4}
		})
		env.emb.maxTokens = 1000
		for _, uri := range []string{"a", "b", "c"} {
			mustUpsertDoc(t, env.ix, uri, strings.Repeat("word ", 30), "", nil)
		}
		docs, err := env.ix.QueryDocuments(ctx, "word", nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range docs {
			n += len(d.Chunks)
		}
		if n != 50 {
			t.Fatalf("%d chunks returned, want 50", n)
		}
	})
	t.Run("embedding errors are *EmbeddingsError", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		env.emb.fail = []docTestFailure{
			{err: &EmbeddingsError{Status: EmbeddingsFailed, Message: "fail"}},
			{resp: EmbeddingsResponse{Status: EmbeddingsFailed, Message: "bad"}},
		}
		for range 2 {
			_, err := env.ix.QueryDocuments(ctx, "q", nil)
			if !errors.Is(err, ErrEmbeddingsFailed) || !strings.Contains(err.Error(), "generate embeddings") {
				t.Fatalf("err = %v", err)
			}
		}
	})
	t.Run("documents are grouped, scored by their mean, sorted and cut to maxDocuments", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		mustUpsertDoc(t, env.ix, "apples", "apple apple", "", Metadata{"kind": "fruit"})
		mustUpsertDoc(t, env.ix, "pears", "pear pear", "", Metadata{"kind": "fruit"})
		mustUpsertDoc(t, env.ix, "mixed", "apple pear", "", Metadata{"kind": "mix"})
		docs, err := env.ix.QueryDocuments(ctx, "apple", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != 3 || docs[0].URI() != "apples" {
			t.Fatalf("docs %v", docURIs(docs))
		}
		for i, d := range docs {
			if !near(d.Score, render.Mean(chunkScores(d.Chunks))) {
				t.Fatalf("doc %d score %v is not its chunks' mean", i, d.Score)
			}
			if i > 0 && d.Score > docs[i-1].Score {
				t.Fatalf("not sorted: %v", docURIs(docs))
			}
		}
		one, err := env.ix.QueryDocuments(ctx, "apple", &DocumentQueryOptions{MaxDocuments: 1})
		if err != nil || len(one) != 1 || one[0].URI() != "apples" {
			t.Fatalf("maxDocuments 1: %v, %v", docURIs(one), err)
		}
		filtered, err := env.ix.QueryDocuments(ctx, "apple", &DocumentQueryOptions{Filter: Filter{"kind": "mix"}})
		if err != nil || !slices.Equal(docURIs(filtered), []string{"mixed"}) {
			t.Fatalf("filtered: %v, %v", docURIs(filtered), err)
		}
	})
	t.Run("hybrid queries append keyword chunks flagged isBm25", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		mustUpsertDoc(t, env.ix, "a", "zebra stripes", "", nil)
		mustUpsertDoc(t, env.ix, "b", "nothing to see", "", nil)
		mustUpsertDoc(t, env.ix, "c", "more plain words", "", nil)
		mustUpsertDoc(t, env.ix, "d", "yet another line", "", nil)
		docs, err := env.ix.QueryDocuments(ctx, "see\nzebra", &DocumentQueryOptions{MaxChunks: 1, IsBm25: true})
		if err != nil {
			t.Fatal(err)
		}
		semantic, keyword := 0, 0
		for _, d := range docs {
			for _, c := range d.Chunks {
				if meta.IsBm25(c.Item.Metadata) {
					keyword++
				} else {
					semantic++
				}
			}
		}
		uris := docURIs(docs)
		slices.Sort(uris)
		if semantic != 1 || keyword != 1 || !slices.Equal(uris, []string{"a", "b"}) {
			t.Fatalf("%d vector and %d keyword chunks from %v", semantic, keyword, uris)
		}
	})
	t.Run("negative options are ErrInvalidArgument", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		if _, err := env.ix.QueryDocuments(ctx, "q", &DocumentQueryOptions{MaxChunks: -1}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("err = %v", err)
		}
	})
}

func docURIs(docs []*LocalDocumentResult) []string {
	out := []string{}
	for _, d := range docs {
		out = append(out, d.URI())
	}
	return out
}

func chunkScores(cs []QueryResult) []float64 {
	out := make([]float64, len(cs))
	for i, c := range cs {
		out[i] = c.Score
	}
	return out
}

func TestDocumentBatches(t *testing.T) {
	ctx := context.Background()
	t.Run("documents upserted in a batch commit with EndUpdate", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		if err := env.ix.BeginUpdate(ctx); err != nil {
			t.Fatal(err)
		}
		a := mustUpsertDoc(t, env.ix, "a", "first text", "", nil)
		mustUpsertDoc(t, env.ix, "b", "second text", "", nil)
		if _, ok, _ := env.ix.GetDocumentID(ctx, "a"); ok {
			t.Fatal("readers see the open batch")
		}
		// Upserting the same content again in the batch is skipped.
		calls := env.emb.callCount()
		if again := mustUpsertDoc(t, env.ix, "a", "first text", "", nil); again.ID() != a.ID() || env.emb.callCount() != calls {
			t.Fatal("unchanged document re-embedded inside the batch")
		}
		if err := env.ix.EndUpdate(ctx); err != nil {
			t.Fatal(err)
		}
		reopened := env.open(t)
		if st, _ := reopened.GetCatalogStats(ctx); st.Documents != 2 {
			t.Fatalf("stats %+v", st)
		}
		if id, _, _ := reopened.GetDocumentID(ctx, "a"); id != a.ID() {
			t.Fatal("document a not saved")
		}
	})
	t.Run("fix: a cancelled batch leaves the catalog and no files behind", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		mustUpsertDoc(t, env.ix, "keep", "kept text", "", nil)
		before := env.st.fileNames(docTestFolder)
		if err := env.ix.BeginUpdate(ctx); err != nil {
			t.Fatal(err)
		}
		mustUpsertDoc(t, env.ix, "a", "first text", "", nil)
		if err := env.ix.DeleteDocument(ctx, "keep"); err != nil {
			t.Fatal(err)
		}
		env.ix.CancelUpdate()
		if _, ok, _ := env.ix.GetDocumentID(ctx, "a"); ok {
			t.Fatal("cancelled document in the catalog")
		}
		if _, ok, _ := env.ix.GetDocumentID(ctx, "keep"); !ok {
			t.Fatal("cancelled delete removed the document")
		}
		if c := env.ix.cat.Load(); c.Count != 1 || len(c.URIToID) != 1 {
			t.Fatalf("catalog %+v", c)
		}
		if got := env.st.fileNames(docTestFolder); !slices.Equal(got, before) {
			t.Fatalf("files %v, want %v", got, before)
		}
	})
	t.Run("a batch replacing a document twice keeps the last version only", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		mustUpsertDoc(t, env.ix, "a", "version one", "", nil)
		if err := env.ix.BeginUpdate(ctx); err != nil {
			t.Fatal(err)
		}
		mustUpsertDoc(t, env.ix, "a", "version two", "", nil)
		v3 := mustUpsertDoc(t, env.ix, "a", "version three", "", nil)
		if err := env.ix.EndUpdate(ctx); err != nil {
			t.Fatal(err)
		}
		items, _ := env.ix.ListItems(ctx)
		for _, it := range items {
			if it.Metadata["documentId"] != v3.ID() {
				t.Fatalf("chunk of an old version: %v", it.Metadata)
			}
		}
		want := []string{"catalog.json", "index.json", v3.ID() + ".txt"}
		slices.Sort(want)
		if got := env.st.fileNames(docTestFolder); !slices.Equal(got, want) {
			t.Fatalf("files %v, want %v", got, want)
		}
	})
	t.Run("createIndex creates the catalog; with DeleteIfExists it forgets the old one", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		if ok, _ := env.ix.IsCatalogCreated(ctx); !ok {
			t.Fatal("no catalog after CreateIndex")
		}
		mustUpsertDoc(t, env.ix, "a", "text", "", nil)
		if err := env.ix.CreateIndex(ctx, CreateIndexConfig{DeleteIfExists: true}); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := env.ix.GetDocumentID(ctx, "a"); ok {
			t.Fatal("the deleted index's catalog is still in memory")
		}
		if ok, _ := env.ix.IsCatalogCreated(ctx); !ok {
			t.Fatal("no catalog after CreateIndex")
		}
	})
	t.Run("files are joined under the folder", func(t *testing.T) {
		env := newCreatedDocEnv(t, nil)
		doc := mustUpsertDoc(t, env.ix, "doc://paths.txt", "text", "txt", Metadata{"key": "value"})
		for _, name := range []string{"catalog.json", "index.json", doc.ID() + ".txt", doc.ID() + ".json"} {
			if !env.st.wrote(env.path(name)) {
				t.Fatalf("%s not written under the folder", name)
			}
		}
	})
}

// A document test index with a chunk whose document is not in the catalog
// (as a crash can leave): queries and listings leave it out, the next
// document write removes it, and Vacuum its files (a chunk key never names
// a file to delete).
func TestStrayChunksAreIgnoredThenRemoved(t *testing.T) {
	ctx := context.Background()
	env := newCreatedDocEnv(t, nil)
	mustUpsertDoc(t, env.ix, "a", "apple text", "", nil)
	// A chunk of a document the catalog does not know, and its text.
	const ghost = "0000aaaa-0000-4000-8000-000000000001"
	if _, err := env.ix.InsertItem(ctx, IndexItem{ID: "stray", Vector: docTestVector("apple text"),
		Metadata: Metadata{"documentId": ghost, "startPos": 0.0, "endPos": 4.0}}); err != nil {
		t.Fatal(err)
	}
	env.st.put(env.path(ghost+".txt"), []byte("apple"))
	// A plain item is not a chunk and stays.
	if _, err := env.ix.InsertItem(ctx, IndexItem{ID: "plain", Vector: docTestVector("apple"), Metadata: Metadata{"documentId": "ghost"}}); err != nil {
		t.Fatal(err)
	}
	docs, err := env.ix.QueryDocuments(ctx, "apple", nil)
	if err != nil || !slices.Equal(docURIs(docs), []string{"a"}) {
		t.Fatalf("query: %v, %v", docURIs(docs), err)
	}
	list, _ := env.ix.ListDocuments(ctx)
	if !slices.Equal(docURIs(list), []string{"a"}) {
		t.Fatalf("list: %v", docURIs(list))
	}
	mustUpsertDoc(t, env.ix, "b", "banana", "", nil)
	if _, ok, _ := env.ix.GetItem(ctx, "stray"); ok {
		t.Fatal("stray chunk kept")
	}
	if _, ok, _ := env.ix.GetItem(ctx, "plain"); !ok {
		t.Fatal("plain item removed")
	}
	if _, ok := env.st.file(env.path(ghost + ".txt")); !ok {
		t.Fatal("a document write removed a file a chunk key named")
	}
	rep, err := env.ix.Vacuum(ctx)
	if err != nil || !slices.Equal(rep.Documents, []string{ghost + ".txt"}) {
		t.Fatalf("vacuum: %+v, %v", rep, err)
	}
	if _, ok := env.st.file(env.path(ghost + ".txt")); ok {
		t.Fatal("stray document's text kept by Vacuum")
	}
}

func TestLocalDocument(t *testing.T) {
	ctx := context.Background()
	env := newCreatedDocEnv(t, nil)
	doc := mustUpsertDoc(t, env.ix, "doc://test", "hello world", "", Metadata{"k": "v"})
	bare := mustUpsertDoc(t, env.ix, "doc://bare", "no metadata", "", nil)
	t.Run("getters return the folder, id and uri", func(t *testing.T) {
		if doc.FolderPath() != docTestFolder || doc.URI() != "doc://test" || doc.ID() == "" {
			t.Fatalf("%q %q %q", doc.FolderPath(), doc.ID(), doc.URI())
		}
	})
	t.Run("LoadText reads the text file once", func(t *testing.T) {
		d := env.ix.document(doc.ID(), doc.URI())
		for range 3 {
			if text, err := d.LoadText(ctx); err != nil || text != "hello world" {
				t.Fatalf("%q, %v", text, err)
			}
		}
		if n := env.st.readCount(env.path(doc.ID() + ".txt")); n != 1 {
			t.Fatalf("read %d times", n)
		}
	})
	t.Run("a read error names the uri", func(t *testing.T) {
		_, err := env.ix.document("missing", "doc://missing").LoadText(ctx)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "doc://missing") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("HasMetadata checks the metadata file", func(t *testing.T) {
		if ok, err := doc.HasMetadata(ctx); !ok || err != nil {
			t.Fatalf("%v, %v", ok, err)
		}
		if ok, err := bare.HasMetadata(ctx); ok || err != nil {
			t.Fatalf("%v, %v", ok, err)
		}
	})
	t.Run("LoadMetadata reads the metadata file once", func(t *testing.T) {
		d := env.ix.document(doc.ID(), doc.URI())
		for range 2 {
			md, err := d.LoadMetadata(ctx)
			if err != nil || md["k"] != "v" || len(md) != 1 {
				t.Fatalf("%v, %v", md, err)
			}
		}
		if n := env.st.readCount(env.path(doc.ID() + ".json")); n != 1 {
			t.Fatalf("read %d times", n)
		}
	})
	t.Run("metadata read and parse errors name the uri", func(t *testing.T) {
		_, err := bare.LoadMetadata(ctx)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "doc://bare") {
			t.Fatalf("err = %v", err)
		}
		env.st.put(env.path("broken.json"), []byte("{not json"))
		_, err = env.ix.document("broken", "doc://broken").LoadMetadata(ctx)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "doc://broken") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("fix: metadata is found in a protobuf index", func(t *testing.T) {
		pb := newCreatedDocEnv(t, func(c *LocalDocumentIndexConfig) { c.Codec = jsonTestCodec{ext: ".pb"} })
		d := mustUpsertDoc(t, pb.ix, "u", "text", "", Metadata{"lang": "en"})
		if _, ok := pb.st.file(pb.path(d.ID() + ".pb")); !ok {
			t.Fatal("metadata not written to <id>.pb")
		}
		if ok, err := d.HasMetadata(ctx); !ok || err != nil {
			t.Fatalf("HasMetadata = %v, %v", ok, err)
		}
		if md, err := d.LoadMetadata(ctx); err != nil || md["lang"] != "en" {
			t.Fatalf("LoadMetadata = %v, %v", md, err)
		}
	})
	t.Run("fix: ids that leave the folder are refused", func(t *testing.T) {
		_, err := env.ix.document("../etc/passwd", "x").LoadText(ctx)
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("GetLength counts tokens up to 40,000 UTF-16 units, estimates above", func(t *testing.T) {
		tests := []struct {
			name string
			text string
			want int
		}{
			{"short text is exact", "hello", 5},
			{"exactly 40,000 units is exact", strings.Repeat("ab", 20000), 40000},
			{"40,001 units is estimated", strings.Repeat("a", 40001), 10001},
			{"astral characters count two units", strings.Repeat("😀", 20001), 10001},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				d := &LocalDocument{tokenizer: testtok.Pair{}, text: render.NewText(tc.text)}
				if tc.name == "short text is exact" || tc.name == "exactly 40,000 units is exact" {
					d.tokenizer = testtok.Char{}
				}
				if n, err := d.GetLength(ctx); n != tc.want || err != nil {
					t.Fatalf("GetLength = %d, %v; want %d", n, err, tc.want)
				}
			})
		}
		d := env.ix.document(doc.ID(), doc.URI())
		for range 2 {
			if n, err := d.GetLength(ctx); n != len("hello world") || err != nil {
				t.Fatalf("GetLength = %d, %v", n, err)
			}
		}
		if n := env.st.readCount(env.path(doc.ID() + ".txt")); n != 2 {
			t.Fatalf("text read %d times in all, want 2 (one per handle)", n)
		}
	})
}

// The hashes stored in a catalog Vectra wrote are the hashes Folio computes
// for the documents it was built from: an unchanged document upserted by
// Folio into a Vectra-made index is recognised.
func TestContentHashMatchesVectraCatalog(t *testing.T) {
	dir := docTestFixtureDir(t)
	var inputs struct {
		Documents struct {
			List []struct {
				URI      string   `json:"uri"`
				Text     string   `json:"text"`
				DocType  string   `json:"docType"`
				Metadata Metadata `json:"metadata"`
			} `json:"list"`
		} `json:"documents"`
	}
	docTestReadJSON(t, filepath.Join(dir, "inputs.json"), &inputs)
	var catalog struct {
		URIToHash map[string]string `json:"uriToHash"`
	}
	docTestReadJSON(t, filepath.Join(dir, "docs-json", "catalog.json"), &catalog)
	if len(inputs.Documents.List) == 0 || len(catalog.URIToHash) != len(inputs.Documents.List) {
		t.Fatalf("%d documents, %d hashes", len(inputs.Documents.List), len(catalog.URIToHash))
	}
	for _, d := range inputs.Documents.List {
		t.Run(d.URI, func(t *testing.T) {
			want, ok := catalog.URIToHash[d.URI]
			if !ok {
				t.Fatalf("no hash for %q in the catalog", d.URI)
			}
			if got := mustHash(t, d.Text, d.DocType, d.Metadata); got != want {
				t.Fatalf("hash = %s, catalog has %s", got, want)
			}
		})
	}
}

func mustHash(t *testing.T, text, docType string, md Metadata) string {
	t.Helper()
	h, err := meta.ContentHash(text, docType, md)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
