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
	Results []documentOutput `json:"results"`
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
	var format, filter, fusion string
	var overlap, bm25 bool
	cmd := &cobra.Command{
		Use:   "query <index> <query>",
		Short: "Search a document index and print the best passages",
		Example: `  folio query my-index "how do I create an index"
  folio query my-index "BM25" --bm25 --format chunks
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
			switch fusion {
			case "", core.FusionRRF:
			default:
				return usagef("--fusion %q: want %s", fusion, core.FusionRRF)
			}
			if fusion != "" && !bm25 {
				return usagef("--fusion ranks vector and keyword matches together: it needs --bm25")
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
			results, err := ix.QueryDocuments(ctx, args[1], &core.DocumentQueryOptions{
				MaxDocuments: docCount, MaxChunks: chunkCount, Filter: f, IsBm25: bm25, Fusion: fusion,
			})
			if err != nil {
				return err
			}
			out := queryOutput{Index: e.folder, Query: args[1], Results: []documentOutput{}}
			for _, r := range results {
				d := documentOutput{URI: r.URI(), Score: r.Score, Count: len(r.Chunks)}
				a.printf("%s\nscore: %.4f\nchunks: %d\n", r.URI(), r.Score, len(r.Chunks))
				switch format {
				case "sections":
					sections, err := r.RenderSections(ctx, tokens, sectionCount, overlap)
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
	fl.IntVar(&docCount, "document-count", 10, "most documents returned (alias --dc)")
	fl.IntVar(&chunkCount, "chunk-count", 50, "most chunks the vector search returns (alias --cc)")
	fl.IntVar(&sectionCount, "section-count", 1, "sections rendered per document (alias --sc)")
	fl.IntVarP(&tokens, "tokens", "t", 2000, "token budget of a document's sections")
	fl.StringVarP(&format, "format", "f", "sections", "output: sections, stats or chunks")
	fl.BoolVarP(&overlap, "overlap", "o", true, "render overlapping chunks")
	fl.BoolVarP(&bm25, "bm25", "b", false, "add BM25 keyword matches (hybrid search)")
	fl.StringVar(&fusion, "fusion", "", "with --bm25, rank vector and keyword matches together: rrf (reciprocal rank fusion; default: Vectra's, keyword matches appended with their raw BM25 scores)")
	fl.StringVar(&filter, "filter", "", `metadata filter as JSON, e.g. '{"lang": "en"}'`)
	fl.SetNormalizeFunc(aliasFlags(map[string]string{"dc": "document-count", "cc": "chunk-count", "sc": "section-count"}))
	return cmd
}
