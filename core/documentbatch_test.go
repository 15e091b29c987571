package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// docAnswer is a document query's answer as comparable text.
func docAnswer(res []*LocalDocumentResult) string {
	var b strings.Builder
	for _, r := range res {
		fmt.Fprintf(&b, "%s %.9f:", r.URI(), r.Score)
		for _, c := range r.Chunks {
			fmt.Fprintf(&b, " %s/%.9f", c.Item.ID, c.Score)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// QueryDocumentsBatch answers each query as QueryDocuments does alone,
// embeds the batch's texts in one call, and names the position of an
// invalid query.
func TestQueryDocumentsBatchAnswersAsAlone(t *testing.T) {
	ctx := context.Background()
	env := newCreatedDocEnv(t, nil)
	for i, text := range []string{
		"Cats purr and sleep in the sun all day long, dreaming of mice.",
		"Rockets burn fuel; orbital rockets are fast and loud.",
		"Bread rises with yeast; bake the bread until golden brown.",
		"A bakery sells bread and cakes to hungry cats.",
	} {
		mustUpsertDoc(t, env.ix, fmt.Sprintf("doc%d", i), text, "", Metadata{"n": float64(i % 2)})
	}
	queries := []DocumentQuery{
		{Query: "cats"},
		{Query: "bread yeast", Options: DocumentQueryOptions{IsBm25: true}},
		{Query: "rockets bread", Options: DocumentQueryOptions{IsBm25: true, Fusion: FusionRRF, MaxDocuments: 2}},
		{Query: "cats bread", Options: DocumentQueryOptions{Filter: Filter{"n": 1.0}, MaxChunks: 3}},
	}
	before := env.emb.callCount()
	got, err := env.ix.QueryDocumentsBatch(ctx, queries)
	if err != nil {
		t.Fatal(err)
	}
	if n := env.emb.callCount() - before; n != 1 {
		t.Errorf("the batch made %d embeddings calls, want 1", n)
	}
	for i, q := range queries {
		o := q.Options
		want, err := env.ix.QueryDocuments(ctx, q.Query, &o)
		if err != nil {
			t.Fatal(err)
		}
		if docAnswer(got[i]) != docAnswer(want) || len(want) == 0 {
			t.Errorf("query %d:\n%s\nalone:\n%s", i, docAnswer(got[i]), docAnswer(want))
		}
		if len(got[i]) > 0 {
			if _, err := got[i][0].LoadText(ctx); err != nil {
				t.Errorf("query %d: the text was not read: %v", i, err)
			}
		}
	}
	bad := append(queries[:1:1], DocumentQuery{Query: "x", Options: DocumentQueryOptions{MaxChunks: -1}})
	if _, err := env.ix.QueryDocumentsBatch(ctx, bad); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "query 1") {
		t.Errorf("an invalid query: %v, want ErrInvalidArgument naming query 1", err)
	}
	if out, err := env.ix.QueryDocumentsBatch(ctx, nil); err != nil || len(out) != 0 {
		t.Errorf("empty batch: %v, %v", out, err)
	}
}
