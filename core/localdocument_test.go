package core

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliovec/folio/core/internal/meta"

	"github.com/foliovec/folio/core/internal/render"
	"github.com/foliovec/folio/core/internal/testtok"
)

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
