package main

import (
	"context"
	"io"

	"fmt"
	"github.com/spf13/pflag"
	"strings"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio/core"
)

// queryOutput is query's --json document.
type queryOutput struct {
	Index   string           `json:"index"`
	Query   string           `json:"query"`
	Ranking string           `json:"ranking,omitempty"`
	Results []documentOutput `json:"results"`

	note string // said instead of results, in text only
}

// The rankings of query's --ranking.
const (
	rankingFusion = "fusion" // reciprocal rank fusion of vector and keyword matches
	rankingVector = "vector" // Vectra's default: cosine similarity alone
	rankingHybrid = "hybrid" // Vectra's --bm25: keyword matches appended
)

// queryRanking resolves query's ranking flags to the ranking and the query
// options that make it. Vectra's flags keep Vectra's meaning: --bm25 alone
// is Vectra's hybrid search, and --vectra without --bm25 is its vector
// search; with none of them the ranking is fusion.
func queryRanking(ranking string, rankingSet, bm25, bm25Set bool, fusion string, vectra bool) (string, core.DocumentQueryOptions, error) {
	switch fusion {
	case "", core.FusionRRF:
	default:
		return "", core.DocumentQueryOptions{}, usagef("--fusion %q: want %s", fusion, core.FusionRRF)
	}
	if !rankingSet {
		switch {
		case fusion != "":
			ranking = rankingFusion
		case bm25Set && bm25:
			ranking = rankingHybrid
		case vectra || bm25Set:
			ranking = rankingVector
		}
	}
	switch ranking {
	case rankingFusion:
		if vectra {
			return "", core.DocumentQueryOptions{}, usagef("--vectra ranks as Vectra does (vector search, or hybrid with --bm25): it cannot be --ranking %s", ranking)
		}
		if bm25Set && !bm25 {
			return "", core.DocumentQueryOptions{}, usagef("--ranking %s ranks vector and keyword matches together: it cannot be --bm25=false", ranking)
		}
		return ranking, core.DocumentQueryOptions{IsBm25: true, Fusion: core.FusionRRF}, nil
	case rankingVector, rankingHybrid:
		if fusion != "" {
			return "", core.DocumentQueryOptions{}, usagef("--fusion %s is --ranking %s, not %s", fusion, rankingFusion, ranking)
		}
		if bm25Set && bm25 != (ranking == rankingHybrid) {
			return "", core.DocumentQueryOptions{}, usagef("--ranking %s and --bm25=%v disagree: hybrid is vector search with keyword matches (--bm25), vector is without", ranking, bm25)
		}
		return ranking, core.DocumentQueryOptions{IsBm25: ranking == rankingHybrid}, nil
	}
	return "", core.DocumentQueryOptions{}, usagef("--ranking %q: want %s, %s or %s", ranking, rankingFusion, rankingVector, rankingHybrid)
}

type documentOutput struct {
	URI      string          `json:"uri"`
	Score    float64         `json:"score"`
	Chunks   []chunkOutput   `json:"chunks,omitempty"`
	Sections []sectionOutput `json:"sections,omitempty"`
	Count    int             `json:"chunkCount"`
}

type chunkOutput struct {
	Score    float64 `json:"score"`
	StartPos int     `json:"startPos"`
	EndPos   int     `json:"endPos"`
	IsBm25   bool    `json:"isBm25"`
	Text     string  `json:"text"`
}

type sectionOutput struct {
	Score      float64 `json:"score"`
	TokenCount int     `json:"tokenCount"`
	IsBm25     bool    `json:"isBm25"`
	// Headings are the headings above the passage, outermost first.
	Headings string `json:"headings,omitempty"`
	Text     string `json:"text"`
}

// queryOptions are query's flags.
type queryOptions struct {
	model                                      modelFlags
	ix                                         indexFlags
	docCount, chunkCount, sectionCount, tokens int
	format, filter, fusion, ranking            string
	overlap, bm25, vectra                      bool
}

func (a *app) queryCommand() *cobra.Command {
	var o queryOptions
	cmd := &cobra.Command{
		Use:   "query <index> <query>",
		Short: "Search a document index and print the best passages",
		Long: `Search a document index and print the best passages.

By default vector and keyword (BM25) matches are ranked together by
reciprocal rank fusion, and each document shows the passage around the lines
of its best chunks that match the query's words, cut at line boundaries.
--ranking vector and --ranking hybrid are Vectra's two rankings (--bm25 alone
is hybrid, as in Vectra); --vectra is Vectra's query exactly: its ranking,
its sections (--overlap) and its sizes (10 documents, 2000 tokens).`,
		Example: `  folio query my-index "how do I create an index"
  folio query my-index "BM25" --ranking vector --format chunks
  folio query my-index "setup" --bm25 --vectra --tokens 1200
  folio query my-index "setup" --filter '{"lang": "en"}' --json`,
		Args: exactArgs(2, "<index> <query>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := a.runQuery(cmd.Context(), cmd.Flags(), &o, args[0], args[1])
			if err == nil {
				a.show(out)
			}
			return err
		},
	}
	o.register(cmd)
	return cmd
}

func (o *queryOptions) register(cmd *cobra.Command) {
	o.model.register(cmd)
	o.ix.register(cmd)
	fl := cmd.Flags()
	fl.IntVar(&o.docCount, "document-count", 5, "most documents returned (alias --dc; 10 with --vectra)")
	fl.IntVar(&o.chunkCount, "chunk-count", 50, "most chunks the vector search returns (alias --cc)")
	fl.IntVar(&o.sectionCount, "section-count", 1, "sections rendered per document (alias --sc)")
	fl.IntVarP(&o.tokens, "tokens", "t", core.DefaultRenderTokens, "token budget of each section (2000 with --vectra)")
	fl.StringVarP(&o.format, "format", "f", "sections", "output: sections, stats or chunks")
	fl.BoolVarP(&o.overlap, "overlap", "o", true, "with --vectra, render overlapping chunks")
	fl.StringVar(&o.ranking, "ranking", rankingFusion, "fusion (vector and keyword matches ranked together by reciprocal rank fusion), vector (Vectra's vector search) or hybrid (Vectra's --bm25: keyword matches appended with their raw BM25 scores)")
	fl.BoolVarP(&o.bm25, "bm25", "b", false, "Vectra's hybrid search, --ranking hybrid (with --fusion rrf: --ranking fusion)")
	fl.StringVar(&o.fusion, "fusion", "", "rrf: --ranking fusion")
	fl.BoolVar(&o.vectra, "vectra", false, "Vectra's query exactly: vector search (hybrid with --bm25), Vectra's sections, 10 documents of 2000 tokens unless given")
	fl.StringVar(&o.filter, "filter", "", `metadata filter as JSON, e.g. '{"lang": "en"}'`)
	fl.SetNormalizeFunc(aliasFlags(map[string]string{"dc": "document-count", "cc": "chunk-count", "sc": "section-count"}))
}

// settle checks the flags against each other and text, and returns the
// ranking and the query's options (Vectra's sizes where --vectra is given
// and they are not).
func (o *queryOptions) settle(fl *pflag.FlagSet, text string) (string, core.DocumentQueryOptions, error) {
	if strings.TrimSpace(text) == "" {
		return "", core.DocumentQueryOptions{}, usagef("<query> is empty: give the text to search for")
	}
	switch o.format {
	case "sections", "stats", "chunks":
	default:
		return "", core.DocumentQueryOptions{}, usagef("--format %q: want sections, stats or chunks", o.format)
	}
	rank, qopts, err := queryRanking(o.ranking, fl.Changed("ranking"), o.bm25, fl.Changed("bm25"), o.fusion, o.vectra)
	if err != nil {
		return "", qopts, err
	}
	if o.vectra && !fl.Changed("document-count") {
		o.docCount = 10
	}
	if o.vectra && !fl.Changed("tokens") {
		o.tokens = core.DefaultVectraRenderTokens
	}
	if o.docCount < 1 || o.chunkCount < 1 || o.tokens < 1 || o.sectionCount < 1 {
		return "", qopts, usagef("--document-count, --chunk-count, --tokens and --section-count must be at least 1")
	}
	if o.filter != "" {
		if qopts.Filter, err = core.ParseFilter([]byte(o.filter)); err != nil {
			return "", qopts, usagef("--filter: %v", err)
		}
	}
	qopts.MaxDocuments, qopts.MaxChunks = o.docCount, o.chunkCount
	return rank, qopts, nil
}

// runQuery asks the index and renders what --format asks for.
func (a *app) runQuery(ctx context.Context, fl *pflag.FlagSet, o *queryOptions, index, text string) (queryOutput, error) {
	rank, qopts, err := o.settle(fl, text)
	if err != nil {
		return queryOutput{}, err
	}
	e, err := a.openExisting(ctx, index)
	if err != nil {
		return queryOutput{}, err
	}
	out := queryOutput{Index: e.shown, Query: text, Results: []documentOutput{}}
	emb, _, err := o.model.requireModel(ctx, a, e.storage, e.folder)
	if err != nil {
		// A new index has no model yet: say it is empty rather than ask
		// for one (the check reads the index, so only here).
		if empty, emptyErr := e.isEmpty(ctx); emptyErr == nil && empty {
			out.note = fmt.Sprintf("the index is empty: add documents with 'folio add %s --uri …'", index)
			return out, nil
		}
		return queryOutput{}, err
	}
	ix, err := e.documentIndex(emb, core.ChunkingConfig{}, &o.ix)
	if err != nil {
		return queryOutput{}, err
	}
	results, err := ix.QueryDocuments(ctx, text, &qopts)
	if err != nil {
		return queryOutput{}, err
	}
	out.Ranking = rank
	for _, r := range results {
		d, err := o.document(ctx, r)
		if err != nil {
			return queryOutput{}, err
		}
		out.Results = append(out.Results, d)
	}
	return out, nil
}

// document is one result as --format shows it.
func (o *queryOptions) document(ctx context.Context, r *core.LocalDocumentResult) (documentOutput, error) {
	d := documentOutput{URI: r.URI(), Score: r.Score, Count: len(r.Chunks)}
	switch o.format {
	case "sections":
		sections, err := r.Render(ctx, &core.RenderOptions{MaxTokens: o.tokens, MaxSections: o.sectionCount, VectraSections: o.vectra, NoOverlap: !o.overlap})
		if err != nil {
			return d, err
		}
		d.Sections = []sectionOutput{}
		for _, s := range sections {
			d.Sections = append(d.Sections, sectionOutput{Score: s.Score, TokenCount: s.TokenCount, IsBm25: s.IsBm25, Headings: s.Headings, Text: s.Text})
		}
	case "chunks":
		texts, err := r.ChunkTexts(ctx)
		if err != nil {
			return d, err
		}
		for i, c := range r.Chunks {
			_, start, end, _ := core.ChunkSpan(c.Item.Metadata)
			_, isBm25 := c.Item.Metadata["isBm25"]
			d.Chunks = append(d.Chunks, chunkOutput{Score: c.Score, StartPos: start, EndPos: end, IsBm25: isBm25, Text: texts[i]})
		}
	}
	return d, nil
}

// writeText prints q as folio query's text: each document with its score,
// then its sections or chunks.
func (q queryOutput) writeText(w io.Writer) {
	if q.note != "" {
		fmt.Fprintln(w, q.note)
		return
	}
	for _, d := range q.Results {
		fmt.Fprintf(w, "%s\nscore: %.4f\nchunks: %d\n", d.URI, d.Score, d.Count)
		for i, s := range d.Sections {
			title := "Section"
			if len(d.Sections) > 1 {
				title = fmt.Sprintf("Section %d", i+1)
			}
			kind := ""
			if s.IsBm25 {
				kind = " (keyword match)"
			}
			heads := ""
			if s.Headings != "" {
				heads = "headings: " + s.Headings + "\n"
			}
			fmt.Fprintf(w, "\n%s%s\nscore: %.4f\ntokens: %d\n%s%s\n", title, kind, s.Score, s.TokenCount, heads, strings.TrimSpace(s.Text))
		}
		for i, c := range d.Chunks {
			fmt.Fprintf(w, "\nChunk %d\nscore: %.4f\nstartPos: %d\nendPos: %d\n%s\n", i+1, c.Score, c.StartPos, c.EndPos, strings.TrimSpace(c.Text))
		}
		fmt.Fprintln(w)
	}
	if len(q.Results) == 0 {
		fmt.Fprintln(w, "no documents found")
	}
}
