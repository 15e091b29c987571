package acceptance_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// docsContent is everything a document index holds, as read through its
// API.
type docsContent struct {
	Stats     core.DocumentCatalogStats
	Documents map[string]docsDocument // by URI
	Items     []core.IndexItem
}

type docsDocument struct {
	ID       string
	Text     string
	Length   int
	Metadata core.Metadata // nil: no metadata file
	Chunks   int
}

// docsContentOf reads the content of the documents under uris. A document
// without chunks (empty text) is not listed; its text is read from its
// file in dir.
func docsContentOf(t *testing.T, ix *core.LocalDocumentIndex, dir string, uris []string) docsContent {
	t.Helper()
	ctx := context.Background()
	st, err := ix.GetCatalogStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := ix.ListDocuments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	chunks := map[string]int{}
	for _, d := range listed {
		chunks[d.ID()] = len(d.Chunks)
	}
	c := docsContent{Stats: st, Documents: map[string]docsDocument{}}
	for _, uri := range uris {
		id, ok, err := ix.GetDocumentID(ctx, uri)
		if err != nil || !ok {
			t.Fatalf("%s: %v, %v", uri, ok, err)
		}
		var doc *core.LocalDocument
		for _, d := range listed {
			if d.ID() == id {
				doc = d.LocalDocument
			}
		}
		if doc == nil {
			raw, err := os.ReadFile(filepath.Join(dir, id+".txt"))
			if err != nil {
				t.Fatalf("%s is neither listed nor stored: %v", uri, err)
			}
			d := docsDocument{ID: id, Text: string(raw), Length: -1}
			if _, err := os.Stat(filepath.Join(dir, id+ix.Codec().Extension())); err == nil {
				d.Metadata = core.Metadata{} // not compared: documents with metadata have chunks here
			}
			c.Documents[uri] = d
			continue
		}
		text, err := doc.LoadText(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n, err := doc.GetLength(ctx)
		if err != nil {
			t.Fatal(err)
		}
		d := docsDocument{ID: id, Text: text, Length: n, Chunks: chunks[id]}
		if has, err := doc.HasMetadata(ctx); err != nil {
			t.Fatal(err)
		} else if has {
			if d.Metadata, err = doc.LoadMetadata(ctx); err != nil {
				t.Fatal(err)
			}
		}
		c.Documents[uri] = d
	}
	if c.Items, err = ix.ListItems(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// A document index Folio writes, with either codec, reads back in a new
// process with the same content, and its folder holds exactly Vectra's
// files: the index and catalog<ext>, <id>.txt per document and <id><ext>
// per document with metadata.
func TestDocsFolioWrittenIndexReadsBack(t *testing.T) {
	ctx := context.Background()
	inputs := testkit.ReadInputs(t)
	type doc struct {
		uri, text string
		md        core.Metadata
	}
	var docs []doc
	for _, d := range inputs.Documents.List {
		docs = append(docs, doc{d.URI, d.Text, d.Metadata})
	}
	docs = append(docs,
		doc{"unicode/emoji.txt", "Emoji 😀 and 日本語 text.\n\nSecond paragraph with é and 📚 books.", core.Metadata{"lang": "mixed", "n": 3, "ok": true}},
		doc{"empty.txt", "", nil},
	)
	uris := make([]string, len(docs))
	for i, d := range docs {
		uris[i] = d.uri
	}
	for _, f := range docsFolders {
		t.Run(f.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "index")
			open := func() *core.LocalDocumentIndex {
				ix, _ := docsOpen(t, dir, f.codec)
				return ix
			}
			ix := open()
			if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				if _, err := ix.UpsertDocument(ctx, d.uri, d.text, "", d.md, nil); err != nil {
					t.Fatal(err)
				}
			}
			written := docsContentOf(t, ix, dir, uris)
			if written.Stats.Documents != len(docs) || written.Stats.Chunks < 60 {
				t.Fatalf("stats %+v", written.Stats)
			}
			for _, d := range docs {
				got := written.Documents[d.uri]
				if got.Text != d.text || (d.md == nil) != (got.Metadata == nil) {
					t.Fatalf("%s: written %+v", d.uri, got)
				}
			}
			read := docsContentOf(t, open(), dir, uris)
			if !reflect.DeepEqual(read.Documents, written.Documents) {
				t.Fatalf("documents read back differ:\n%+v\n%+v", read.Documents, written.Documents)
			}
			if !reflect.DeepEqual(read.Items, written.Items) {
				t.Fatal("chunk items read back differ")
			}
			// A protobuf file always holds the indexed list, so no indexed
			// keys read back as an empty list, as in Vectra.
			if read.Stats.Version != written.Stats.Version || read.Stats.Documents != written.Stats.Documents ||
				read.Stats.Chunks != written.Stats.Chunks || !slices.Equal(read.Stats.MetadataConfig.Indexed, written.Stats.MetadataConfig.Indexed) {
				t.Fatalf("stats read back %+v, written %+v", read.Stats, written.Stats)
			}

			ext := f.codec.Extension()
			want := []string{"catalog" + ext, "index" + ext}
			for _, d := range docs {
				id := written.Documents[d.uri].ID
				want = append(want, id+".txt")
				if d.md != nil {
					want = append(want, id+ext)
				}
			}
			slices.Sort(want)
			if got := docsFileNames(t, dir); !slices.Equal(got, want) {
				t.Fatalf("files %v, want %v", got, want)
			}
		})
	}
}
