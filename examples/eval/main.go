// Command eval is the repository's retrieval benchmark (make eval): it adds
// the files of testdata/eval/corpus to a document index, asks every
// question of testdata/eval/questions.json, each naming the one file that
// answers it, and prints hit@1, hit@3 and the mean reciprocal rank (MRR)
// of that file among the documents returned, for vector search, Vectra's
// hybrid search (keyword matches appended) and hybrid search with
// reciprocal rank fusion, under Vectra's chunking and Folio's.
//
// It runs offline with embedhash, the word-hashing model (it matches
// words, not meaning), and the embedded o200k_base tokenizer; indexes are
// built in temporary folders, removed at exit.
//
// The program runs its steps one after another on the main goroutine. The
// first error ends it: it is logged to standard error and the exit status
// is 1.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/core"
)

// question is one entry of questions.json.
type question struct {
	Question string `json:"question"`
	File     string `json:"file"`
}

// mode is one way of querying.
type mode struct {
	name string
	opts core.DocumentQueryOptions
}

var modes = []mode{
	{"vector", core.DocumentQueryOptions{}},
	{"hybrid (Vectra's)", core.DocumentQueryOptions{IsBm25: true}},
	{"hybrid, fusion (rrf)", core.DocumentQueryOptions{IsBm25: true, Fusion: core.FusionRRF}},
}

func main() {
	data := flag.String("data", "testdata/eval", "folder holding corpus/ and questions.json")
	dims := flag.Int("dims", 384, "dimensions of the word-hashing model")
	chunkSize := flag.Int("chunk-size", 512, "most tokens per chunk")
	fusionK := flag.Int("k", 0, "reciprocal rank fusion's k (0: the default, 60)")
	flag.Parse()
	if err := run(context.Background(), *data, *dims, *chunkSize, *fusionK); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, data string, dims, chunkSize, fusionK int) error {
	raw, err := os.ReadFile(filepath.Join(data, "questions.json"))
	if err != nil {
		return err
	}
	var qs []question
	if err := json.Unmarshal(raw, &qs); err != nil {
		return fmt.Errorf("questions.json: %w", err)
	}
	files, err := filepath.Glob(filepath.Join(data, "corpus", "*"))
	if err != nil {
		return err
	}
	fmt.Printf("%d files, %d questions, embedhash %d dimensions, chunks of at most %d tokens\n\n", len(files), len(qs), dims, chunkSize)
	fmt.Printf("%-16s %-22s %7s %7s %7s %7s\n", "chunking", "search", "chunks", "hit@1", "hit@3", "MRR")
	for _, vectra := range []bool{true, false} {
		ix, chunks, cleanup, err := build(ctx, files, dims, chunkSize, vectra)
		if err != nil {
			return err
		}
		name := "Folio's"
		if vectra {
			name = "Vectra's"
		}
		for _, m := range modes {
			m.opts.FusionK = fusionK
			hit1, hit3, mrr, err := score(ctx, ix, qs, m.opts)
			if err != nil {
				cleanup()
				return err
			}
			fmt.Printf("%-16s %-22s %7d %7.3f %7.3f %7.3f\n", name, m.name, chunks, hit1, hit3, mrr)
		}
		cleanup()
	}
	return nil
}

// build adds files to a new document index in a temporary folder.
func build(ctx context.Context, files []string, dims, chunkSize int, vectra bool) (*core.LocalDocumentIndex, int, func(), error) {
	dir, err := os.MkdirTemp("", "folio-eval-")
	if err != nil {
		return nil, 0, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
		FolderPath:     filepath.Join(dir, "ix"),
		Embeddings:     embedhash.New(&embedhash.Options{Dimensions: dims}),
		ChunkingConfig: core.ChunkingConfig{ChunkSize: chunkSize, VectraChunking: vectra},
	})
	if err == nil {
		err = ix.CreateIndex(ctx, core.CreateIndexConfig{Version: 1})
	}
	if err != nil {
		cleanup()
		return nil, 0, nil, err
	}
	docs := make([]core.DocumentInput, len(files))
	for i, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			cleanup()
			return nil, 0, nil, err
		}
		docs[i] = core.DocumentInput{URI: filepath.Base(f), Text: string(text)}
	}
	if _, err := ix.UpsertDocuments(ctx, docs, nil); err != nil {
		cleanup()
		return nil, 0, nil, err
	}
	st, err := ix.GetCatalogStats(ctx)
	if err != nil {
		cleanup()
		return nil, 0, nil, err
	}
	return ix, st.Chunks, cleanup, nil
}

// score asks every question and returns hit@1, hit@3 and MRR.
func score(ctx context.Context, ix *core.LocalDocumentIndex, qs []question, opts core.DocumentQueryOptions) (hit1, hit3, mrr float64, err error) {
	for _, q := range qs {
		o := opts
		res, err := ix.QueryDocuments(ctx, q.Question, &o)
		if err != nil {
			return 0, 0, 0, err
		}
		for rank, r := range res {
			if strings.EqualFold(r.URI(), q.File) {
				if rank == 0 {
					hit1++
				}
				if rank < 3 {
					hit3++
				}
				mrr += 1 / float64(rank+1)
				break
			}
		}
	}
	n := float64(len(qs))
	return hit1 / n, hit3 / n, mrr / n, nil
}
