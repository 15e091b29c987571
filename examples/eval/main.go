// Command eval is the repository's retrieval benchmark (make eval). Each
// folder of testdata/eval holding corpus/ and questions.json is a corpus:
// its files go into a document index, and every question, which names the
// one file that answers it and a line of that file that is the answer, is
// asked of it. For each corpus, chunking (Vectra's and Folio's) and ranking
// it prints:
//
//   - hit@1, hit@3 and the mean reciprocal rank (MRR) of the right file
//     among the documents returned;
//   - passage: how often the right file is in the top 3 and the passage
//     folio query shows for it (Render, one section of -tokens tokens)
//     contains the answer line;
//   - Vectra sect.: the same for Vectra's sections (RenderSections) on the
//     same budget.
//
// The rankings are vector search, Vectra's hybrid search (keyword matches
// appended) and reciprocal rank fusion of vector and keyword search, the
// default of folio query.
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
	"io"
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
	Answer   string `json:"answer"`
}

// mode is one way of querying.
type mode struct {
	name string
	opts core.DocumentQueryOptions
}

// defaultMode is the name of the mode folio query uses.
const defaultMode = "fusion (default)"

var modes = []mode{
	{"vector (Vectra's)", core.DocumentQueryOptions{}},
	{"hybrid (Vectra's)", core.DocumentQueryOptions{IsBm25: true}},
	{defaultMode, core.DocumentQueryOptions{IsBm25: true, Fusion: core.FusionRRF}},
}

// config is what one run measures.
type config struct {
	dims, chunkSize, fusionK, tokens int
	// misses, when set, receives each question whose right file is in the
	// top 3 but whose passage lacks the answer, with that passage.
	misses io.Writer
}

// row is one line of the table.
type row struct {
	corpus, chunking, mode     string
	chunks                     int
	hit1, hit3, mrr            float64
	passage, vectraSection     float64
	questions, files, corpusKB int
}

func main() {
	data := flag.String("data", "testdata/eval", "folder whose subfolders hold corpus/ and questions.json")
	var c config
	flag.IntVar(&c.dims, "dims", 384, "dimensions of the word-hashing model")
	flag.IntVar(&c.chunkSize, "chunk-size", 256, "most tokens per chunk (folio add's default)")
	flag.IntVar(&c.fusionK, "k", 0, "reciprocal rank fusion's k (0: the default, 60)")
	flag.IntVar(&c.tokens, "tokens", core.DefaultRenderTokens, "token budget of the passage shown")
	verbose := flag.Bool("v", false, "print the passages that miss the answer (default ranking, Folio's chunking)")
	flag.Parse()
	if *verbose {
		c.misses = os.Stderr
	}
	rows, err := evaluate(context.Background(), *data, c)
	if err != nil {
		log.Fatal(err)
	}
	printTable(os.Stdout, rows, c)
}

// printTable writes rows as make eval shows them.
func printTable(w io.Writer, rows []row, c config) {
	fmt.Fprintf(w, "embedhash %d dimensions, chunks of at most %d tokens, passages of %d tokens\n", c.dims, c.chunkSize, c.tokens)
	last := ""
	for _, r := range rows {
		if r.corpus != last {
			last = r.corpus
			fmt.Fprintf(w, "\n%s: %d files (%d KB), %d questions\n", r.corpus, r.files, r.corpusKB, r.questions)
			fmt.Fprintf(w, "%-10s %-18s %7s %7s %7s %7s %8s %14s\n", "chunking", "ranking", "chunks", "hit@1", "hit@3", "MRR", "passage", "Vectra sect.")
		}
		fmt.Fprintf(w, "%-10s %-18s %7d %7.3f %7.3f %7.3f %8.3f %14.3f\n", r.chunking, r.mode, r.chunks, r.hit1, r.hit3, r.mrr, r.passage, r.vectraSection)
	}
}

// evaluate measures every corpus under data.
func evaluate(ctx context.Context, data string, c config) ([]row, error) {
	dirs, err := filepath.Glob(filepath.Join(data, "*", "questions.json"))
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("no corpus under %s: want <name>/questions.json and <name>/corpus/", data)
	}
	var rows []row
	for _, qf := range dirs {
		dir := filepath.Dir(qf)
		rs, err := evaluateCorpus(ctx, dir, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		rows = append(rows, rs...)
	}
	return rows, nil
}

func evaluateCorpus(ctx context.Context, dir string, c config) ([]row, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "questions.json"))
	if err != nil {
		return nil, err
	}
	var qs []question
	if err := json.Unmarshal(raw, &qs); err != nil {
		return nil, fmt.Errorf("questions.json: %w", err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "corpus", "*"))
	if err != nil {
		return nil, err
	}
	docs := make([]core.DocumentInput, len(files))
	size := 0
	for i, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		size += len(text)
		docs[i] = core.DocumentInput{URI: filepath.Base(f), Text: string(text)}
	}
	var rows []row
	for _, vectra := range []bool{true, false} {
		ix, chunks, cleanup, err := build(ctx, docs, c, vectra)
		if err != nil {
			return nil, err
		}
		chunking := "Folio's"
		if vectra {
			chunking = "Vectra's"
		}
		for _, m := range modes {
			r := row{corpus: filepath.Base(dir), chunking: chunking, mode: m.name, chunks: chunks, questions: len(qs), files: len(files), corpusKB: size / 1024}
			m.opts.FusionK = c.fusionK
			var misses io.Writer
			if m.name == defaultMode && !vectra {
				misses = c.misses
			}
			if err := score(ctx, ix, qs, m.opts, c.tokens, misses, &r); err != nil {
				cleanup()
				return nil, err
			}
			rows = append(rows, r)
		}
		cleanup()
	}
	return rows, nil
}

// build adds docs to a new document index in a temporary folder.
func build(ctx context.Context, docs []core.DocumentInput, c config, vectra bool) (*core.LocalDocumentIndex, int, func(), error) {
	dir, err := os.MkdirTemp("", "folio-eval-")
	if err != nil {
		return nil, 0, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
		FolderPath:     filepath.Join(dir, "ix"),
		Embeddings:     embedhash.New(&embedhash.Options{Dimensions: c.dims}),
		ChunkingConfig: core.ChunkingConfig{ChunkSize: c.chunkSize, VectraChunking: vectra},
	})
	if err == nil {
		err = ix.CreateIndex(ctx, core.CreateIndexConfig{Version: 1})
	}
	if err == nil {
		_, err = ix.UpsertDocuments(ctx, docs, nil)
	}
	var st core.DocumentCatalogStats
	if err == nil {
		st, err = ix.GetCatalogStats(ctx)
	}
	if err != nil {
		cleanup()
		return nil, 0, nil, err
	}
	return ix, st.Chunks, cleanup, nil
}

// score asks every question and fills in r's measures.
func score(ctx context.Context, ix *core.LocalDocumentIndex, qs []question, opts core.DocumentQueryOptions, tokens int, misses io.Writer, r *row) error {
	for _, q := range qs {
		o := opts
		res, err := ix.QueryDocuments(ctx, q.Question, &o)
		if err != nil {
			return err
		}
		for rank, d := range res {
			if !strings.EqualFold(d.URI(), q.File) {
				continue
			}
			if rank == 0 {
				r.hit1++
			}
			r.mrr += 1 / float64(rank+1)
			if rank >= 3 {
				break
			}
			r.hit3++
			for _, vectra := range []bool{false, true} {
				s, err := d.Render(ctx, &core.RenderOptions{MaxTokens: tokens, VectraSections: vectra})
				if err != nil {
					return err
				}
				switch {
				case len(s) > 0 && strings.Contains(squeeze(s[0].Text), squeeze(q.Answer)):
					if vectra {
						r.vectraSection++
					} else {
						r.passage++
					}
				case !vectra && misses != nil:
					text := "(none)"
					if len(s) > 0 {
						text = s[0].Text
					}
					fmt.Fprintf(misses, "--- %s (%s, rank %d)\nanswer: %s\n%s\n\n", q.Question, q.File, rank+1, q.Answer, text)
				}
			}
			break
		}
	}
	n := float64(len(qs))
	r.hit1, r.hit3, r.mrr, r.passage, r.vectraSection = r.hit1/n, r.hit3/n, r.mrr/n, r.passage/n, r.vectraSection/n
	return nil
}

// squeeze turns every run of white space into one space, so that an answer
// matches across line breaks and indentation.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }
