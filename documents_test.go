package folio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	storagemem "github.com/foliovec/folio/adapters/storage-mem"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
)

// wordTokenizer is a stand-in tokenizer: one token per byte.
type wordTokenizer struct{}

func (wordTokenizer) Encode(text string) []int {
	out := make([]int, len(text))
	for i := range text {
		out[i] = int(text[i])
	}
	return out
}

func (wordTokenizer) Decode(tokens []int) string {
	b := make([]byte, len(tokens))
	for i, t := range tokens {
		b[i] = byte(t)
	}
	return string(b)
}

func TestNewLocalDocumentIndexDefaults(t *testing.T) {
	ctx := context.Background()
	t.Run("a folder path is required", func(t *testing.T) {
		if _, err := NewLocalDocumentIndex(DocumentIndexConfig{}); !errors.Is(err, core.ErrInvalidArgument) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("nil storage, codec and tokenizer mean local files, JSON and o200k_base", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "docs")
		ix, err := NewLocalDocumentIndex(DocumentIndexConfig{FolderPath: dir, Embeddings: embedhash.New(nil)})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ix.Storage().(*storagefs.LocalFileStorage); !ok {
			t.Fatalf("storage %T", ix.Storage())
		}
		if _, ok := ix.Codec().(*codecjson.JsonCodec); !ok {
			t.Fatalf("codec %T", ix.Codec())
		}
		if _, ok := ix.Tokenizer().(*tokenizertiktoken.DefaultTokenizer); !ok {
			t.Fatalf("tokenizer %T", ix.Tokenizer())
		}
		if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
			t.Fatal(err)
		}
		doc, err := ix.UpsertDocument(ctx, "notes.md", "# Notes\n\nSome text.", "", core.Metadata{"k": "v"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"index.json", "catalog.json", doc.ID() + ".txt", doc.ID() + ".json"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	})
	t.Run("given storage, codec, tokenizer and index name are used", func(t *testing.T) {
		st := storagemem.New()
		ix, err := NewLocalDocumentIndex(DocumentIndexConfig{
			FolderPath:   "mem",
			Tokenizer:    wordTokenizer{},
			Embeddings:   embedhash.New(&embedhash.Options{Dimensions: 8}),
			IndexOptions: core.IndexOptions{Storage: st, Codec: codecpb.New(), IndexName: "vectors.pb"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if ix.Tokenizer() != (wordTokenizer{}) || ix.IndexName() != "vectors.pb" {
			t.Fatalf("tokenizer %T, index name %q", ix.Tokenizer(), ix.IndexName())
		}
		if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"mem/vectors.pb", "mem/catalog.pb"} {
			if ok, _ := st.PathExists(ctx, p); !ok {
				t.Fatalf("%s not in the given storage", p)
			}
		}
	})
	t.Run("the chunking config's tokenizer stands in for a missing one", func(t *testing.T) {
		ix, err := NewLocalDocumentIndex(DocumentIndexConfig{
			FolderPath:     "x",
			ChunkingConfig: core.ChunkingConfig{ChunkSize: 100, Tokenizer: wordTokenizer{}},
			IndexOptions:   core.IndexOptions{Storage: storagemem.New()},
		})
		if err != nil {
			t.Fatal(err)
		}
		if ix.Tokenizer() != (wordTokenizer{}) {
			t.Fatalf("tokenizer %T", ix.Tokenizer())
		}
	})
}
