// Command eval is the repository's retrieval benchmark (make eval). Each
// folder of testdata/eval holding questions.json is a corpus: the files of
// its corpus/ folder, or those corpus.json names in a corpus installed
// under -corpora (make eval-corpora), go into a document index, and every
// question, which names the one file that answers it and a line of that
// file that is the answer, is asked of it. For each corpus, setup and
// ranking it prints:
//
//   - hit@1, hit@3 and the mean reciprocal rank (MRR) of the right file
//     among the documents returned;
//   - passage: how often the right file is in the top 3 and the passage
//     folio query shows for it (Render, one section of -tokens tokens)
//     contains the answer line;
//   - Vectra sect.: the same for Vectra's sections (RenderSections) on the
//     same budget.
//
// The setups are Vectra's (its chunking, chunks embedded bare, the text
// alone ranked by keywords), before (Folio's chunking as it was before
// documents had fields: chunks embedded bare, the text alone ranked by
// keywords, passages grown by lines) and Folio's (the defaults: chunks
// embedded with their heading path, BM25F over text, headings, title and
// name, passages chosen by the document's structure). The rankings are
// vector search, Vectra's hybrid search (keyword matches appended) and
// reciprocal rank fusion of vector and keyword search, the default of
// folio query.
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
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	"github.com/foliovec/folio/core"
)

// corpusSpec is corpus.json: where a corpus that is not in the repository
// lies and which of its files are indexed.
type corpusSpec struct {
	// Root is the corpus's folder, relative to -corpora.
	Root string `json:"root"`
	// Include are the globs (filepath.Match, relative to Root) of the files.
	Include []string `json:"include"`
}

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

// setup is one way of building and rendering the index.
type setup struct {
	name string
	// vectra is Vectra's chunking; before is Folio's chunking with fields
	// and structured passages off.
	vectra, before bool
}

var setups = []setup{{name: "Vectra's", vectra: true}, {name: "before", before: true}, {name: "Folio's"}}

// folioSetup is the name of the setup folio add and folio query use.
const folioSetup = "Folio's"

// config is what one run measures.
type config struct {
	dims, chunkSize, fusionK, tokens int
	// corpora is the folder corpus.json's roots are relative to.
	corpora string
	// only, when not empty, names the corpora measured.
	only map[string]bool
	// weights are Folio's setup's field weights.
	weights core.FieldWeights
	// setups, when not nil, are the setups measured (default: all).
	setups []setup
	// small indexes, of a corpus installed under corpora, only the files
	// its questions name and as many others, the first by name: the small
	// form of the benchmark that the tests run.
	small bool
	// misses, when set, receives each question whose right file is in the
	// top 3 but whose passage lacks the answer, with that passage.
	misses io.Writer
}

// row is one line of the table.
type row struct {
	corpus, setup, mode        string
	chunks                     int
	hit1, hit3, mrr            float64
	passage, vectraSection     float64
	questions, files, corpusKB int
	// add is the time the setup's index took to build (its every row);
	// query the median time of one question: its query and its passage.
	add, query time.Duration
}

func main() {
	data := flag.String("data", "testdata/eval", "folder whose subfolders hold corpus/ and questions.json")
	var c config
	flag.IntVar(&c.dims, "dims", 384, "dimensions of the word-hashing model")
	flag.IntVar(&c.chunkSize, "chunk-size", 256, "most tokens per chunk (folio add's default)")
	flag.IntVar(&c.fusionK, "k", 0, "reciprocal rank fusion's k (0: the default, 60)")
	flag.IntVar(&c.tokens, "tokens", core.DefaultRenderTokens, "token budget of the passage shown")
	flag.StringVar(&c.corpora, "corpora", ".cache/eval", "folder of the corpora make eval-corpora installs")
	c.weights = core.DefaultFieldWeights()
	flag.Float64Var(&c.weights.Title, "title", c.weights.Title, "weight of the title field (Folio's setup)")
	flag.Float64Var(&c.weights.Headings, "headings", c.weights.Headings, "weight of the headings field (Folio's setup)")
	flag.Float64Var(&c.weights.Name, "name", c.weights.Name, "weight of the name field (Folio's setup)")
	only := flag.String("only", "", "comma-separated corpora to measure (default: all)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	verbose := flag.Bool("v", false, "print the passages that miss the answer (default ranking, Folio's setup)")
	flag.Parse()
	if *only != "" {
		c.only = map[string]bool{}
		for _, name := range strings.Split(*only, ",") {
			c.only[name] = true
		}
	}
	if *verbose {
		c.misses = os.Stderr
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	rows, err := evaluate(context.Background(), *data, c)
	if err != nil {
		log.Fatal(err)
	}
	printTable(os.Stdout, rows, c)
}

// printTable writes rows as make eval shows them.
func printTable(w io.Writer, rows []row, c config) {
	fmt.Fprintf(w, "model embedhash (%d dimensions), chunks of at most %d tokens, passages of %d tokens\n", c.dims, c.chunkSize, c.tokens)
	last := ""
	for _, r := range rows {
		if r.corpus != last {
			last = r.corpus
			fmt.Fprintf(w, "\n%s: %d files (%d KB), %d questions\n", r.corpus, r.files, r.corpusKB, r.questions)
			fmt.Fprintf(w, "%-9s %-18s %7s %7s %7s %7s %8s %14s %7s %9s\n", "setup", "ranking", "chunks", "hit@1", "hit@3", "MRR", "passage", "Vectra sect.", "add s", "query ms")
		}
		fmt.Fprintf(w, "%-9s %-18s %7d %7.3f %7.3f %7.3f %8.3f %14.3f %7.2f %9.2f\n", r.setup, r.mode, r.chunks, r.hit1, r.hit3, r.mrr, r.passage, r.vectraSection,
			r.add.Seconds(), float64(r.query.Microseconds())/1000)
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
		if c.only != nil && !c.only[filepath.Base(dir)] {
			continue
		}
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
	docs, size, err := readCorpus(dir, c.corpora)
	if err != nil {
		return nil, err
	}
	if c.small {
		docs, size = smallCorpus(docs, qs)
	}
	for _, q := range qs {
		i := slices.IndexFunc(docs, func(d core.DocumentInput) bool { return d.URI == q.File })
		if i < 0 {
			return nil, fmt.Errorf("question %q: no file %s in the corpus", q.Question, q.File)
		}
		if !strings.Contains(squeeze(docs[i].Text), squeeze(q.Answer)) {
			return nil, fmt.Errorf("question %q: its answer %q is not in %s", q.Question, q.Answer, q.File)
		}
	}
	var rows []row
	measured := setups
	if c.setups != nil {
		measured = c.setups
	}
	for _, su := range measured {
		begin := time.Now()
		ix, chunks, cleanup, err := build(ctx, docs, c, su)
		if err != nil {
			return nil, err
		}
		add := time.Since(begin)
		for _, m := range modes {
			r := row{corpus: filepath.Base(dir), setup: su.name, mode: m.name, chunks: chunks, questions: len(qs), files: len(docs), corpusKB: size / 1024, add: add}
			m.opts.FusionK = c.fusionK
			var misses io.Writer
			if m.name == defaultMode && su.name == folioSetup {
				misses = c.misses
			}
			if err := score(ctx, ix, qs, m.opts, c.tokens, su.before, misses, &r); err != nil {
				cleanup()
				return nil, err
			}
			rows = append(rows, r)
		}
		cleanup()
	}
	return rows, nil
}

// readCorpus reads the files of a corpus: those of dir/corpus, or, when
// dir holds corpus.json, the files it names under corpora. A document's
// URI is its path under the corpus's root, with slashes. It returns them
// with their total size in bytes.
func readCorpus(dir, corpora string) ([]core.DocumentInput, int, error) {
	root, include := filepath.Join(dir, "corpus"), []string{"*"}
	if raw, err := os.ReadFile(filepath.Join(dir, "corpus.json")); err == nil {
		var spec corpusSpec
		if err := json.Unmarshal(raw, &spec); err != nil {
			return nil, 0, fmt.Errorf("corpus.json: %w", err)
		}
		root, include = filepath.Join(corpora, filepath.FromSlash(spec.Root)), spec.Include
		if _, err := os.Stat(root); err != nil {
			return nil, 0, fmt.Errorf("corpus %s is not installed (make eval-corpora installs it): %w", spec.Root, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, 0, err
	}
	var docs []core.DocumentInput
	size := 0
	for _, pattern := range include {
		files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
		if err != nil {
			return nil, 0, err
		}
		if len(files) == 0 {
			return nil, 0, fmt.Errorf("no file of %s matches %s", root, pattern)
		}
		for _, f := range files {
			text, err := os.ReadFile(f)
			if err != nil {
				return nil, 0, err
			}
			rel, err := filepath.Rel(root, f)
			if err != nil {
				return nil, 0, err
			}
			size += len(text)
			docs = append(docs, core.DocumentInput{URI: filepath.ToSlash(rel), Text: string(text)})
		}
	}
	return docs, size, nil
}

// smallCorpus keeps the documents qs name and as many others, the first
// in docs' order, and returns them with their size in bytes.
func smallCorpus(docs []core.DocumentInput, qs []question) ([]core.DocumentInput, int) {
	named := map[string]bool{}
	for _, q := range qs {
		named[q.File] = true
	}
	var out []core.DocumentInput
	others, size := 0, 0
	for _, d := range docs {
		if !named[d.URI] {
			if others >= len(named) {
				continue
			}
			others++
		}
		out = append(out, d)
		size += len(d.Text)
	}
	return out, size
}

// build adds docs to a new document index in a temporary folder, built as
// su says.
func build(ctx context.Context, docs []core.DocumentInput, c config, su setup) (*core.LocalDocumentIndex, int, func(), error) {
	dir, err := os.MkdirTemp("", "folio-eval-")
	if err != nil {
		return nil, 0, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	opts := core.IndexOptions{FieldWeights: &c.weights}
	if su.before || su.vectra {
		opts.FieldWeights = &core.FieldWeights{} // the text alone
	}
	opts, err = folio.WithDefaults(opts)
	if err != nil {
		cleanup()
		return nil, 0, nil, err
	}
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
		FolderPath:     filepath.Join(dir, "ix"),
		Embeddings:     embedhash.New(&embedhash.Options{Dimensions: c.dims}),
		ChunkingConfig: core.ChunkingConfig{ChunkSize: c.chunkSize, VectraChunking: su.vectra, BareChunks: su.before},
		IndexOptions:   opts,
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
// With linePassages, Folio's passages are the line-based ones of before.
func score(ctx context.Context, ix *core.LocalDocumentIndex, qs []question, opts core.DocumentQueryOptions, tokens int, linePassages bool, misses io.Writer, r *row) error {
	var took []time.Duration
	for _, q := range qs {
		o := opts
		begin := time.Now()
		res, err := ix.QueryDocuments(ctx, q.Question, &o)
		if err != nil {
			return err
		}
		if len(res) > 0 { // what folio query shows first: the best document's passage
			if _, err := res[0].Render(ctx, &core.RenderOptions{MaxTokens: tokens, LinePassages: linePassages}); err != nil {
				return err
			}
		}
		took = append(took, time.Since(begin))
		if misses != nil {
			if i := slices.IndexFunc(res, func(d *core.LocalDocumentResult) bool { return strings.EqualFold(d.URI(), q.File) }); i < 0 || i >= 3 {
				var top []string
				for _, d := range res[:min(3, len(res))] {
					top = append(top, d.URI())
				}
				fmt.Fprintf(misses, "--- %s (%s): rank %d; top 3: %s\n\n", q.Question, q.File, i+1, strings.Join(top, ", "))
			}
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
				s, err := d.Render(ctx, &core.RenderOptions{MaxTokens: tokens, VectraSections: vectra, LinePassages: linePassages})
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
	slices.Sort(took)
	r.query = took[len(took)/2]
	n := float64(len(qs))
	r.hit1, r.hit3, r.mrr, r.passage, r.vectraSection = r.hit1/n, r.hit3/n, r.mrr/n, r.passage/n, r.vectraSection/n
	return nil
}

// squeeze turns every run of white space into one space, so that an answer
// matches across line breaks and indentation.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }
