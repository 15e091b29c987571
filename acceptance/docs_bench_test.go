package acceptance_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/core"
)

// Benchmarks of the document index with the real adapters: the local file
// system (a temporary folder, warm page cache), the JSON codec, the
// o200k_base tokenizer and embed-hash at its default 384 dimensions, with
// the default chunking (512 tokens, separators kept). Documents are about
// 2 KB of markdown drawn from a fixed vocabulary.

var docsBenchWords = strings.Fields(`vector index search query embedding
document chunk token model filter metadata score cosine similarity keyword
hybrid ranking catalog folder file codec storage json protobuf batch commit
crash write read cache memory disk render section peak budget passage text
split separator markdown heading paragraph list table code python golang
node server client stream error retry limit timeout latency throughput`)

// docsBenchText is about size bytes of markdown made of seeded random
// sentences.
func docsBenchText(r *rand.Rand, size int) string {
	var b strings.Builder
	for section := 1; b.Len() < size; section++ {
		fmt.Fprintf(&b, "## Section %d\n\n", section)
		for range 3 + r.IntN(3) {
			n := 8 + r.IntN(12)
			for i := range n {
				w := docsBenchWords[r.IntN(len(docsBenchWords))]
				if i == 0 {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
				b.WriteString(w)
				if i < n-1 {
					b.WriteByte(' ')
				}
			}
			b.WriteString(". ")
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

// docsBenchIndex creates a document index in a temporary folder.
func docsBenchIndex(b *testing.B) *core.LocalDocumentIndex {
	b.Helper()
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
		FolderPath: filepath.Join(b.TempDir(), "docs"),
		Embeddings: embedhash.New(nil),
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := ix.CreateIndex(context.Background(), core.CreateIndexConfig{}); err != nil {
		b.Fatal(err)
	}
	return ix
}

// docsBenchFill upserts n documents of about 2 KB in one batch.
func docsBenchFill(b *testing.B, ix *core.LocalDocumentIndex, texts []string) {
	b.Helper()
	ctx := context.Background()
	if err := ix.BeginUpdate(ctx); err != nil {
		b.Fatal(err)
	}
	for i, text := range texts {
		if _, err := ix.UpsertDocument(ctx, fmt.Sprintf("docs/doc-%04d.md", i), text, "", core.Metadata{"n": i % 10}, nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := ix.EndUpdate(ctx); err != nil {
		b.Fatal(err)
	}
}

func docsBenchTexts(n int) []string {
	r := rand.New(rand.NewPCG(7, 11))
	texts := make([]string, n)
	for i := range texts {
		texts[i] = docsBenchText(r, 2000)
	}
	return texts
}

// BenchmarkUpsertDocuments measures upserting 1,000 documents of about 2 KB:
// "batch" in one BeginUpdate … EndUpdate (one index write; an op is all
// 1,000), and "each" one document at a time into an index of 1,000
// documents (an op is one upsert replacing a document, which rewrites the
// whole index file).
func BenchmarkUpsertDocuments(b *testing.B) {
	const n = 1000
	texts := docsBenchTexts(n)
	var bytes int64
	for _, t := range texts {
		bytes += int64(len(t))
	}
	b.Run("batch-1000", func(b *testing.B) {
		b.SetBytes(bytes)
		for b.Loop() {
			b.StopTimer()
			ix := docsBenchIndex(b)
			b.StartTimer()
			docsBenchFill(b, ix, texts)
		}
		b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N*n)*1e6, "µs/doc")
	})
	b.Run("each-into-1000", func(b *testing.B) {
		ctx := context.Background()
		ix := docsBenchIndex(b)
		docsBenchFill(b, ix, texts)
		r := rand.New(rand.NewPCG(3, 5))
		i := 0
		for b.Loop() {
			text := docsBenchText(r, 2000)
			if _, err := ix.UpsertDocument(ctx, fmt.Sprintf("docs/doc-%04d.md", i%n), text, "", nil, nil); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkQueryDocumentsRender measures a document query on an index of
// 1,000 documents of about 2 KB, then the rendering of every document found
// (10 by default): RenderSections(2000, 1, true) with and without BM25, and
// folio query's default, rank fusion with Render's passages. The keyword
// index is built by a first hybrid query before the timer starts.
func BenchmarkQueryDocumentsRender(b *testing.B) {
	ctx := context.Background()
	ix := docsBenchIndex(b)
	docsBenchFill(b, ix, docsBenchTexts(1000))
	queries := []string{"hybrid keyword ranking", "crash write disk", "render section budget", "python golang server"}
	for _, mode := range []struct {
		name string
		opts core.DocumentQueryOptions
	}{
		{"bm25=false", core.DocumentQueryOptions{}},
		{"bm25=true", core.DocumentQueryOptions{IsBm25: true}},
		{"fusion+passages", core.DocumentQueryOptions{IsBm25: true, Fusion: core.FusionRRF}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			if _, err := ix.QueryDocuments(ctx, "warm up", &mode.opts); err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				o := mode.opts
				docs, err := ix.QueryDocuments(ctx, queries[i%len(queries)], &o)
				if err != nil {
					b.Fatal(err)
				}
				if len(docs) == 0 {
					b.Fatal("no documents")
				}
				for _, d := range docs {
					if mode.opts.Fusion != "" {
						_, err = d.Render(ctx, nil) // folio query's default
					} else {
						_, err = d.RenderSections(ctx, 2000, 1, true)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				i++
			}
		})
	}
}

// BenchmarkHybridQueryIndexedMetadata measures QueryDocuments with BM25 on
// a document index of 1,000 documents of about 2 KB whose metadata config
// indexes "n" (so each chunk also has a side-car for "topic"), filtered on
// n: "first" is the first hybrid query after opening the folder, which
// builds the keyword index; "steady" the queries after it.
func BenchmarkHybridQueryIndexedMetadata(b *testing.B) {
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "docs")
	open := func() *core.LocalDocumentIndex {
		ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: dir, Embeddings: embedhash.New(nil)})
		if err != nil {
			b.Fatal(err)
		}
		return ix
	}
	ix := open()
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"n"}}}); err != nil {
		b.Fatal(err)
	}
	var inputs []core.DocumentInput
	for i, text := range docsBenchTexts(1000) {
		inputs = append(inputs, core.DocumentInput{URI: fmt.Sprintf("docs/doc-%04d.md", i), Text: text, Metadata: core.Metadata{"n": i % 10, "topic": "bench"}})
	}
	if _, err := ix.UpsertDocuments(ctx, inputs, nil); err != nil {
		b.Fatal(err)
	}
	opts := &core.DocumentQueryOptions{IsBm25: true, Filter: core.Filter{"n": map[string]any{"$in": []any{1, 2, 3}}}}
	query := func(ix *core.LocalDocumentIndex) {
		docs, err := ix.QueryDocuments(ctx, "hybrid keyword ranking", opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(docs) == 0 {
			b.Fatal("no documents")
		}
	}
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			fresh := open()
			if _, err := fresh.GetIndexStats(ctx); err != nil { // load outside the timer
				b.Fatal(err)
			}
			b.StartTimer()
			query(fresh)
		}
	})
	b.Run("steady", func(b *testing.B) {
		query(ix)
		for b.Loop() {
			query(ix)
		}
	})
}
