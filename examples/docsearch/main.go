package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/core"
)

// questions are asked of the documentation.
var questions = []string{
	"How do I run every test with the race detector?",
	"Is an index folder file-compatible with Vectra?",
}

func main() {
	root := flag.String("root", "", "repository root (default: the folder holding go.work, found from the working directory up)")
	dir := flag.String("dir", "", "index folder (default: a new temporary folder, removed at exit)")
	maxTokens := flag.Int("tokens", 120, "token budget of each rendered section")
	flag.Parse()
	if err := run(*root, *dir, *maxTokens); err != nil {
		log.Fatal(err)
	}
}

// countingModel counts the embeddings calls of a model.
type countingModel struct {
	core.EmbeddingsModel
	calls atomic.Int64
}

func (m *countingModel) CreateEmbeddings(ctx context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	m.calls.Add(1)
	return m.EmbeddingsModel.CreateEmbeddings(ctx, inputs)
}

func run(root, dir string, maxTokens int) error {
	ctx := context.Background()
	if root == "" {
		var err error
		if root, err = findRoot(); err != nil {
			return err
		}
	}
	files, err := documentation(root)
	if err != nil {
		return err
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "folio-docsearch-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = filepath.Join(tmp, "index")
	}

	model := &countingModel{EmbeddingsModel: embedhash.New(nil)}
	// Local files, JSON and the o200k_base tokenizer by default; small
	// chunks (passages, not whole pages), the other chunking defaults kept.
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: dir, Embeddings: model, ChunkingConfig: core.ChunkingConfig{ChunkSize: 128}})
	if err != nil {
		return err
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{DeleteIfExists: true}); err != nil {
		return err
	}

	fmt.Printf("Folio document search over %s (%s), embedded offline with embedhash (384 dimensions)\n\n", root, strings.Join(files, ", "))
	start := time.Now()
	if err := upsertAll(ctx, ix, root, files); err != nil {
		return err
	}
	stats, err := ix.GetCatalogStats(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("Indexed %d documents, %d chunks, %d embeddings calls, in %v.\n",
		stats.Documents, stats.Chunks, model.calls.Load(), time.Since(start).Round(time.Millisecond))
	before := model.calls.Load()
	if err := upsertAll(ctx, ix, root, files); err != nil {
		return err
	}
	fmt.Printf("Upserted again: unchanged documents are skipped by their content hash (%d embeddings calls).\n",
		model.calls.Load()-before)

	for _, q := range questions {
		fmt.Printf("\n=== %s\n", q)
		for _, m := range []struct {
			name string
			opts core.DocumentQueryOptions
		}{
			{"vector search (Vectra's default)", core.DocumentQueryOptions{}},
			{"vector and keyword matches ranked together by rank fusion (folio query's default)", core.DocumentQueryOptions{IsBm25: true, Fusion: core.FusionRRF}},
		} {
			fmt.Printf("\n--- %s\n", m.name)
			if err := ask(ctx, ix, q, m.opts, maxTokens); err != nil {
				return err
			}
		}
	}
	return nil
}

// upsertAll upserts each documentation file under its path from root.
func upsertAll(ctx context.Context, ix *core.LocalDocumentIndex, root string, files []string) error {
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return err
		}
		if _, err := ix.UpsertDocument(ctx, f, string(text), "", core.Metadata{"source": "repository"}, nil); err != nil {
			return err
		}
	}
	return nil
}

// ask queries the index for its 4 best chunks (and up to 4 keyword
// matches with IsBm25) and prints, for each of the two best documents, its
// best passage.
func ask(ctx context.Context, ix *core.LocalDocumentIndex, question string, opts core.DocumentQueryOptions, maxTokens int) error {
	opts.MaxDocuments, opts.MaxChunks = 2, 4
	docs, err := ix.QueryDocuments(ctx, question, &opts)
	if err != nil {
		return err
	}
	if len(docs) == 0 {
		fmt.Println("(no documents)")
	}
	for _, d := range docs {
		keyword := 0
		for _, c := range d.Chunks {
			if c.Item.Metadata["isBm25"] == true {
				keyword++
			}
		}
		fmt.Printf("%s  score %.4f  (%d matching chunks, %d by keyword)\n", d.URI(), d.Score, len(d.Chunks), keyword)
		sections, err := d.Render(ctx, &core.RenderOptions{MaxTokens: maxTokens})
		if err != nil {
			return err
		}
		for _, s := range sections {
			kind := "vector"
			if s.IsBm25 {
				kind = "keyword"
			}
			fmt.Printf("  [passage of a %s match, %d tokens, score %.4f]\n", kind, s.TokenCount, s.Score)
			for _, line := range strings.Split(strings.TrimSpace(s.Text), "\n") {
				fmt.Printf("  | %s\n", line)
			}
		}
	}
	return nil
}

// documentation lists README.md and the markdown files under docs/, as
// slash-separated paths from root.
func documentation(root string) ([]string, error) {
	files := []string{"README.md"}
	if _, err := os.Stat(filepath.Join(root, "README.md")); err != nil {
		return nil, err
	}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, e fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files[1:])
	return files, nil
}

// findRoot walks up from the working directory to the folder holding
// go.work.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.work not found above the working directory: pass -root")
		}
		dir = parent
	}
}
