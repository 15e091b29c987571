package core

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio/core/internal/meta"

	"github.com/foliovec/folio/core/internal/render"
)

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
