package core

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio/core/internal/meta"

	"github.com/foliovec/folio/core/internal/testtok"
)

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
