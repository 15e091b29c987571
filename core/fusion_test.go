package core

import (
	"context"
	"errors"
	"math"
	"testing"
)

func fusionHit(id string, score float64, keyword bool) QueryResult {
	md := Metadata{"documentId": "d", "startPos": 0.0, "endPos": 1.0}
	if keyword {
		md["isBm25"] = true
	}
	return QueryResult{Item: IndexItem{ID: id, Metadata: md}, Score: score}
}

// Reciprocal rank fusion: 1/(k+rank) per ranking, summed for a chunk in
// both (kept as its vector hit), sorted by the sum.
func TestFuseRanks(t *testing.T) {
	in := []QueryResult{
		fusionHit("a", 0.9, false), fusionHit("b", 0.8, false), fusionHit("c", 0.7, false),
		fusionHit("c", 7.5, true), fusionHit("d", 3.0, true), fusionHit("a", 1.0, true),
	}
	got := fuseRanks(in, 60)
	want := []struct {
		id      string
		score   float64
		keyword bool
	}{
		{"a", 1.0/61 + 1.0/63, false}, // a tie with c: the order first seen
		{"c", 1.0/63 + 1.0/61, false},
		{"b", 1.0 / 62, false},
		{"d", 1.0 / 62, true},
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	for i, w := range want {
		_, kw := got[i].Item.Metadata["isBm25"]
		if got[i].Item.ID != w.id || math.Abs(got[i].Score-w.score) > 1e-15 || kw != w.keyword {
			t.Errorf("result %d: %s %.6f keyword %v, want %s %.6f keyword %v", i, got[i].Item.ID, got[i].Score, kw, w.id, w.score, w.keyword)
		}
	}
}

// QueryDocuments with Fusion: every chunk on the fused scale, a document
// scored by its best chunk; Vectra's way stays the default; a bad Fusion
// is refused.
func TestQueryDocumentsFusion(t *testing.T) {
	ctx := context.Background()
	env := newCreatedDocEnv(t, nil)
	for uri, text := range map[string]string{
		"cats":    "Cats purr and sleep in the sun all day long.",
		"rockets": "Rockets burn fuel; orbital rockets are fast.",
		"bread":   "Bread rises with yeast; bake the bread until golden.",
	} {
		mustUpsertDoc(t, env.ix, uri, text, "", nil)
	}
	res, err := env.ix.QueryDocuments(ctx, "bread rockets", &DocumentQueryOptions{IsBm25: true, Fusion: FusionRRF})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 {
		t.Fatal("no results")
	}
	keyword := false
	for i, r := range res {
		best := 0.0
		for _, c := range r.Chunks {
			if c.Score <= 0 || c.Score > 2.0/61 {
				t.Errorf("%s: chunk score %v outside (0, 2/61]", r.URI(), c.Score)
			}
			if _, kw := c.Item.Metadata["isBm25"]; kw {
				keyword = true
			}
			best = max(best, c.Score)
		}
		if r.Score != best {
			t.Errorf("%s scores %v, its best chunk %v", r.URI(), r.Score, best)
		}
		if i > 0 && r.Score > res[i-1].Score {
			t.Errorf("results out of order: %v after %v", r.Score, res[i-1].Score)
		}
	}
	if !keyword && len(res) < 3 {
		t.Errorf("no keyword match among %d results", len(res))
	}
	// Without IsBm25, Fusion changes nothing.
	plain, err := env.ix.QueryDocuments(ctx, "bread rockets", nil)
	if err != nil {
		t.Fatal(err)
	}
	fusedPlain, err := env.ix.QueryDocuments(ctx, "bread rockets", &DocumentQueryOptions{Fusion: FusionRRF})
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain {
		if plain[i].URI() != fusedPlain[i].URI() || plain[i].Score != fusedPlain[i].Score {
			t.Fatalf("Fusion without IsBm25 changed result %d", i)
		}
	}
	for _, bad := range []DocumentQueryOptions{{IsBm25: true, Fusion: "borda"}, {IsBm25: true, Fusion: FusionRRF, FusionK: -1}} {
		if _, err := env.ix.QueryDocuments(ctx, "bread", &bad); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%+v: %v, want ErrInvalidArgument", bad, err)
		}
	}
}
