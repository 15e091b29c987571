package core

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
)

// countScorer scores a text by how often it holds the query's first
// word, counting its calls.
type countScorer struct {
	calls atomic.Int64
	fail  error
	short bool
}

func (c *countScorer) ScoreKeywords(_ context.Context, query string, texts []string) ([]float64, error) {
	c.calls.Add(1)
	if c.fail != nil {
		return nil, c.fail
	}
	word := strings.Fields(query)[0]
	out := make([]float64, len(texts))
	for i, t := range texts {
		out[i] = float64(strings.Count(t, word))
		if strings.Contains(t, "nan") {
			out[i] = math.NaN()
		}
	}
	if c.short {
		out = out[1:]
	}
	return out, nil
}

// IndexOptions.KeywordScorer ranks the keyword half of hybrid queries in
// place of the built-in BM25, with every eligible chunk's text; its
// failures fail the query.
func TestKeywordScorerRanksHybridMatches(t *testing.T) {
	ctx := context.Background()
	sc := &countScorer{}
	env := newCreatedDocEnv(t, func(c *LocalDocumentIndexConfig) {
		c.ChunkingConfig = ChunkingConfig{ChunkSize: 1000}
		c.IndexOptions.KeywordScorer = sc
	})
	mustUpsertDoc(t, env.ix, "one", "zebra appears once here", "", nil)
	mustUpsertDoc(t, env.ix, "three", "zebra zebra zebra three times", "", nil)
	mustUpsertDoc(t, env.ix, "none", "nothing striped at all", "", nil)
	mustUpsertDoc(t, env.ix, "nan", "zebra nan scored", "", nil)
	for _, fusion := range []string{"", FusionRRF} {
		docs, err := env.ix.QueryDocuments(ctx, "zebra", &DocumentQueryOptions{IsBm25: true, Fusion: fusion, MaxChunks: 1})
		if err != nil {
			t.Fatal(err)
		}
		var keyword []string
		for _, d := range docs {
			for _, c := range d.Chunks {
				if c.Item.Metadata["isBm25"] == true {
					keyword = append(keyword, d.URI())
				}
			}
		}
		if strings.Contains(strings.Join(keyword, ","), "none") || strings.Contains(strings.Join(keyword, ","), "nan") {
			t.Errorf("fusion %q: keyword matches %v hold a chunk the scorer gave 0 or NaN", fusion, keyword)
		}
	}
	if sc.calls.Load() == 0 {
		t.Fatal("the scorer was never called")
	}
	// Ranked by the scorer: "three" before "one" (the keyword half of a
	// fused query, which excludes no vector hit).
	keywordScores := func() ([]float64, error) {
		hits, err := env.ix.Query(ctx, ItemQuery{Vector: docTestVector("unrelated words"), Query: "zebra", TopK: 10, IsBm25: true, fusion: true})
		var out []float64
		for _, h := range hits {
			if h.Item.Metadata["isBm25"] == true {
				out = append(out, h.Score)
			}
		}
		return out, err
	}
	if order, err := keywordScores(); err != nil || len(order) != 2 || order[0] != 3 || order[1] != 1 {
		t.Errorf("keyword scores %v (%v), want [3 1] (the scorer's, highest first)", order, err)
	}
	sc.fail = errors.New("scorer down")
	if _, err := keywordScores(); !errors.Is(err, sc.fail) {
		t.Errorf("a failing scorer: %v, want its error", err)
	}
	sc.fail, sc.short = nil, true
	if _, err := keywordScores(); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("a scorer answering too few scores: %v, want ErrInvalidArgument", err)
	}
}
