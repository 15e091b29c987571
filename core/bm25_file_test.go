package core

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/foliovec/folio/core/internal/bm25"
)

// lockingTestStorage is test storage that can lock folders, as local
// files and memory can: readers may write the keyword file there.
type lockingTestStorage struct{ *memTestStorage }

func (lockingTestStorage) LockFolder(context.Context, string) (func(), error) { return func() {}, nil }

// textReads counts the reads of document text files.
func textReads(st *memTestStorage) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	n := 0
	for p, c := range st.reads {
		if strings.HasSuffix(p, ".txt") {
			n += c
		}
	}
	return n
}

// hybridAnswer is a hybrid query's answer as comparable text.
func hybridAnswer(t *testing.T, ix *LocalDocumentIndex, query string) string {
	t.Helper()
	res, err := ix.QueryDocuments(context.Background(), query, &DocumentQueryOptions{IsBm25: true, MaxDocuments: 10, MaxChunks: 2})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range res {
		fmt.Fprintf(&b, "%s %.6f:", r.URI(), r.Score)
		for _, c := range r.Chunks {
			fmt.Fprintf(&b, " %v/%.6f", c.Item.Metadata["isBm25"], c.Score)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// A process's first hybrid query reads the keyword file a previous one
// wrote instead of reading and tokenizing every document; chunks the file
// lacks are tokenized and the file rewritten; a damaged file is rebuilt;
// the answers are always those of a build from the documents.
func TestKeywordFile(t *testing.T) {
	ctx := context.Background()
	st := newMemTestStorage()
	env := newCreatedDocEnv(t, func(c *LocalDocumentIndexConfig) { c.Storage = lockingTestStorage{st} })
	file := env.path(keywordFileName)
	for uri, text := range map[string]string{
		"cats":    "Cats purr and sleep in the sun. A purring cat is content.",
		"rockets": "Rockets burn fuel for thrust; orbital rockets are fast.",
		"bread":   "Bread rises with yeast. Bake the bread until golden.",
	} {
		mustUpsertDoc(t, env.ix, uri, text, "", nil)
	}
	const query = "purring rockets bread"
	first := hybridAnswer(t, env.ix, query)
	raw, ok := st.file(file)
	if !ok {
		t.Fatal("the first hybrid query wrote no keyword file")
	}
	if _, err := bm25.Decode(raw); err != nil {
		t.Fatal(err)
	}

	// A new process: same answer, and no document read but the texts of
	// the results, which every query loads.
	before := textReads(st)
	if got := hybridAnswer(t, env.open(t), query); got != first {
		t.Fatalf("with the keyword file:\n%s\nwant\n%s", got, first)
	}
	results := strings.Count(first, "\n")
	if n := textReads(st) - before; n != results {
		t.Errorf("a new process read %d document texts, want only the %d results'", n, results)
	}

	// Another process adds a document; the next one tokenizes only it.
	mustUpsertDoc(t, env.open(t), "bakery", "A bakery sells bread, rockets of dough and purring ovens.", "", nil)
	before = textReads(st)
	withFile := hybridAnswer(t, env.open(t), query)
	if n, want := textReads(st)-before, strings.Count(withFile, "\n")+1; n != want {
		t.Errorf("after one document was added a new process read %d document texts, want %d (the new one and the results')", n, want)
	}
	if err := st.DeleteFile(ctx, file); err != nil {
		t.Fatal(err)
	}
	if fromDocs := hybridAnswer(t, env.open(t), query); withFile != fromDocs {
		t.Fatalf("answer with the file:\n%s\nfrom the documents:\n%s", withFile, fromDocs)
	}

	// A damaged file is rebuilt.
	raw, _ = st.file(file)
	raw[len(raw)/2] ^= 0xff
	if err := st.UpsertFile(ctx, file, raw); err != nil {
		t.Fatal(err)
	}
	if got := hybridAnswer(t, env.open(t), query); got != withFile {
		t.Fatalf("with a damaged file:\n%s\nwant\n%s", got, withFile)
	}
	if raw, _ := st.file(file); raw == nil {
		t.Fatal("the damaged file was not rewritten")
	} else if _, err := bm25.Decode(raw); err != nil {
		t.Fatalf("the rewritten file: %v", err)
	}

	// A deleted document's chunks leave the file with the next rebuild.
	if err := env.open(t).DeleteDocument(ctx, "bakery"); err != nil {
		t.Fatal(err)
	}
	if got := hybridAnswer(t, env.open(t), query); got != first {
		t.Fatalf("after the delete:\n%s\nwant\n%s", got, first)
	}
	raw, _ = st.file(file)
	f, err := bm25.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range f.Chunks {
		if strings.Contains(strings.Join(chunkTerms(f, c), " "), "bakeri") {
			t.Fatalf("the file still holds a chunk of the deleted document: %v", c)
		}
	}
}

func chunkTerms(f *bm25.File, c bm25.Chunk) []string {
	var out []string
	for _, t := range c.Terms {
		out = append(out, f.Terms[t.Term])
	}
	return out
}

// On storage that cannot lock folders (object storage, read by many
// servers) readers never write the keyword file.
func TestKeywordFileNotWrittenWithoutLocks(t *testing.T) {
	env := newCreatedDocEnv(t, nil)
	mustUpsertDoc(t, env.ix, "cats", "Cats purr.", "", nil)
	hybridAnswer(t, env.ix, "purr")
	if env.st.wrote(env.path(keywordFileName)) {
		t.Fatal("a reader wrote the keyword file on storage without locks")
	}
}
