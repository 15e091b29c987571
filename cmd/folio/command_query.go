package main

import (
	"fmt"
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
	Text       string  `json:"text"`
}

func (a *app) queryCommand() *cobra.Command {
	var model modelFlags
	var ixFlags indexFlags
	var docCount, chunkCount, sectionCount, tokens int
	var format, filter, fusion, ranking string
	var overlap, bm25, vectra bool
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
			ctx := cmd.Context()
			if strings.TrimSpace(args[1]) == "" {
				return usagef("<query> is empty: give the text to search for")
			}
			switch format {
			case "sections", "stats", "chunks":
			default:
				return usagef("--format %q: want sections, stats or chunks", format)
			}
			fl := cmd.Flags()
			rank, qopts, err := queryRanking(ranking, fl.Changed("ranking"), bm25, fl.Changed("bm25"), fusion, vectra)
			if err != nil {
				return err
			}
			if vectra {
				// Vectra's sizes where none is given.
				if !fl.Changed("document-count") {
					docCount = 10
				}
				if !fl.Changed("tokens") {
					tokens = core.DefaultVectraRenderTokens
				}
			}
			if docCount < 1 || chunkCount < 1 || tokens < 1 || sectionCount < 1 {
				return usagef("--document-count, --chunk-count, --tokens and --section-count must be at least 1")
			}
			var f core.Filter
			if filter != "" {
				var err error
				if f, err = core.ParseFilter([]byte(filter)); err != nil {
					return usagef("--filter: %v", err)
				}
			}
			e, err := a.openExisting(ctx, args[0])
			if err != nil {
				return err
			}
			emb, _, err := model.requireModel(ctx, e.storage, e.folder)
			if err != nil {
				// A new index has no model yet: say it is empty rather than
				// ask for one (the check reads the index, so only here).
				if empty, emptyErr := e.isEmpty(ctx); emptyErr == nil && empty {
					a.printf("the index is empty: add documents with 'folio add %s --uri …'\n", args[0])
					a.result(queryOutput{Index: e.folder, Query: args[1], Results: []documentOutput{}})
					return nil
				}
				return err
			}
			ix, err := e.documentIndex(emb, core.ChunkingConfig{}, &ixFlags)
			if err != nil {
				return err
			}
			qopts.MaxDocuments, qopts.MaxChunks, qopts.Filter = docCount, chunkCount, f
			results, err := ix.QueryDocuments(ctx, args[1], &qopts)
			if err != nil {
				return err
			}
			out := queryOutput{Index: e.folder, Query: args[1], Ranking: rank, Results: []documentOutput{}}
			for _, r := range results {
				d := documentOutput{URI: r.URI(), Score: r.Score, Count: len(r.Chunks)}
				a.printf("%s\nscore: %.4f\nchunks: %d\n", r.URI(), r.Score, len(r.Chunks))
				switch format {
				case "sections":
					sections, err := r.Render(ctx, &core.RenderOptions{MaxTokens: tokens, MaxSections: sectionCount, VectraSections: vectra, NoOverlap: !overlap})
					if err != nil {
						return err
					}
					for i, s := range sections {
						d.Sections = append(d.Sections, sectionOutput{Score: s.Score, TokenCount: s.TokenCount, IsBm25: s.IsBm25, Text: s.Text})
						title := "Section"
						if len(sections) > 1 {
							title = fmt.Sprintf("Section %d", i+1)
						}
						kind := ""
						if s.IsBm25 {
							kind = " (keyword match)"
						}
						a.printf("\n%s%s\nscore: %.4f\ntokens: %d\n%s\n", title, kind, s.Score, s.TokenCount, strings.TrimSpace(s.Text))
					}
				case "chunks":
					texts, err := r.ChunkTexts(ctx)
					if err != nil {
						return err
					}
					for i, c := range r.Chunks {
						_, start, end, _ := core.ChunkSpan(c.Item.Metadata)
						_, isBm25 := c.Item.Metadata["isBm25"]
						t := texts[i]
						d.Chunks = append(d.Chunks, chunkOutput{Score: c.Score, StartPos: start, EndPos: end, IsBm25: isBm25, Text: t})
						a.printf("\nChunk %d\nscore: %.4f\nstartPos: %d\nendPos: %d\n%s\n", i+1, c.Score, start, end, strings.TrimSpace(t))
					}
				}
				a.printf("\n")
				out.Results = append(out.Results, d)
			}
			if len(results) == 0 {
				a.printf("no documents found\n")
			}
			a.result(out)
			return nil
		},
	}
	model.register(cmd)
	ixFlags.register(cmd)
	fl := cmd.Flags()
	fl.IntVar(&docCount, "document-count", 5, "most documents returned (alias --dc; 10 with --vectra)")
	fl.IntVar(&chunkCount, "chunk-count", 50, "most chunks the vector search returns (alias --cc)")
	fl.IntVar(&sectionCount, "section-count", 1, "sections rendered per document (alias --sc)")
	fl.IntVarP(&tokens, "tokens", "t", core.DefaultRenderTokens, "token budget of each section (2000 with --vectra)")
	fl.StringVarP(&format, "format", "f", "sections", "output: sections, stats or chunks")
	fl.BoolVarP(&overlap, "overlap", "o", true, "with --vectra, render overlapping chunks")
	fl.StringVar(&ranking, "ranking", rankingFusion, "fusion (vector and keyword matches ranked together by reciprocal rank fusion), vector (Vectra's vector search) or hybrid (Vectra's --bm25: keyword matches appended with their raw BM25 scores)")
	fl.BoolVarP(&bm25, "bm25", "b", false, "Vectra's hybrid search, --ranking hybrid (with --fusion rrf: --ranking fusion)")
	fl.StringVar(&fusion, "fusion", "", "rrf: --ranking fusion")
	fl.BoolVar(&vectra, "vectra", false, "Vectra's query exactly: vector search (hybrid with --bm25), Vectra's sections, 10 documents of 2000 tokens unless given")
	fl.StringVar(&filter, "filter", "", `metadata filter as JSON, e.g. '{"lang": "en"}'`)
	fl.SetNormalizeFunc(aliasFlags(map[string]string{"dc": "document-count", "cc": "chunk-count", "sc": "section-count"}))
	return cmd
}
