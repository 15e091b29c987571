package core

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Every query of a batch gets what QueryItems returns for it: unfiltered
// (the blocked pass, on several workers), filtered, zero, topK beyond the
// index, with BM25 and side-car metadata; equal vectors and zero vectors
// rank as in the single scan.
func TestQueryItemsBatchEqualsQueryItems(t *testing.T) {
	const n, d = 10_000, 48
	vecs := gaussianUnitVectors(51, n, d)
	for i := 0; i < n; i += 501 {
		vecs[i] = make([]float32, d)
	}
	copy(vecs[9000], vecs[3]) // a tie, ranked in storage order
	md := func(i int) Metadata { return Metadata{"category": fmt.Sprint("c", i%10), "year": float64(1990 + i%35)} }
	_, ix := quantTestIndexes(t, CodesInt8, vecs, 0, md)
	ctx := context.Background()
	var queries []ItemQuery
	for i, q := range gaussianUnitVectors(52, 70, d) {
		queries = append(queries, ItemQuery{Vector: q, TopK: 1 + i%25})
	}
	queries = append(queries,
		ItemQuery{Vector: vecs[3], TopK: 5},
		ItemQuery{Vector: make([]float32, d), TopK: 3},
		ItemQuery{Vector: vecs[7], TopK: n + 10},
		ItemQuery{Vector: vecs[8], TopK: 0},
		ItemQuery{Vector: vecs[9], TopK: 10, Filter: Filter{"category": "c3"}},
		ItemQuery{Vector: vecs[10], TopK: 10, Filter: Filter{"year": Filter{"$gt": 2020}}},
	)
	check := func(t *testing.T, ix *LocalIndex) {
		got, err := ix.QueryItemsBatch(ctx, queries)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(queries) {
			t.Fatalf("%d answers for %d queries", len(got), len(queries))
		}
		for i, q := range queries {
			want, err := ix.QueryItems(ctx, q.Vector, q.Query, q.TopK, q.Filter, q.IsBm25)
			if err != nil {
				t.Fatal(err)
			}
			sameResults(t, fmt.Sprintf("query %d", i), got[i], want)
		}
	}
	t.Run("exact", func(t *testing.T) { check(t, ix) })
	t.Run("quantized", func(t *testing.T) {
		q, _ := quantTestIndexes(t, CodesInt8, vecs, 0, md)
		check(t, q)
	})
	t.Run("one worker", func(t *testing.T) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		check(t, ix)
	})
	four, _ := quantTestIndexes(t, CodesInt4, vecs, 0, md)
	t.Run("int4", func(t *testing.T) { check(t, four) })
	t.Run("int4, one worker", func(t *testing.T) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		check(t, four)
	})
	both, _ := quantTestIndexes(t, CodesInt4Int8, vecs, 0, md)
	t.Run("int4+int8", func(t *testing.T) { check(t, both) })
}

func TestQueryItemsBatchBM25AndSidecars(t *testing.T) {
	ctx := context.Background()
	env := newCreatedDocEnv(t, nil)
	mustUpsertDoc(t, env.ix, "a.txt", "apples and pears grow on trees in the orchard", "", nil)
	mustUpsertDoc(t, env.ix, "b.txt", "rockets fly to the moon and back again", "", nil)
	mustUpsertDoc(t, env.ix, "c.txt", "pears are sweet; apples are crisp", "", nil)
	// A plain index whose items keep a non-indexed key in side-cars.
	side, _ := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"k"}}})
	for i := range 20 {
		mustInsert(t, side, fmt.Sprint("s", i), docTestVector(fmt.Sprint("word", i%7, " other")), Metadata{"k": i % 3, "note": fmt.Sprint("n", i)})
	}
	for _, c := range []struct {
		ix      *LocalIndex
		queries []ItemQuery
	}{
		{env.ix.LocalIndex, []ItemQuery{
			{Vector: docTestVector("apples pears"), Query: "apples", TopK: 2, IsBm25: true},
			{Vector: docTestVector("moon"), TopK: 2},
			{Vector: docTestVector("sweet"), Query: "sweet crisp", TopK: 1, IsBm25: true},
		}},
		{side, []ItemQuery{
			{Vector: docTestVector("word3 other"), TopK: 4},
			{Vector: docTestVector("word5"), TopK: 3, Filter: Filter{"k": 1}},
		}},
	} {
		got, err := c.ix.QueryItemsBatch(ctx, c.queries)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range c.queries {
			want, err := c.ix.QueryItems(ctx, q.Vector, q.Query, q.TopK, q.Filter, q.IsBm25)
			if err != nil {
				t.Fatal(err)
			}
			sameResults(t, fmt.Sprint("query ", i), got[i], want)
			for j := range want {
				if fmt.Sprint(got[i][j].Item.Metadata) != fmt.Sprint(want[j].Item.Metadata) {
					t.Fatalf("query %d result %d metadata %v, want %v", i, j, got[i][j].Item.Metadata, want[j].Item.Metadata)
				}
			}
		}
	}
}

func TestQueryItemsBatchErrors(t *testing.T) {
	ix, _ := newCreatedIndex(t, CreateIndexConfig{})
	ctx := context.Background()
	mustInsert(t, ix, "a", []float32{1, 0, 0}, nil)
	res, err := ix.QueryItemsBatch(ctx, nil)
	if err != nil || len(res) != 0 {
		t.Fatalf("empty batch: %v %v", res, err)
	}
	_, err = ix.QueryItemsBatch(ctx, []ItemQuery{{Vector: []float32{1, 0, 0}, TopK: 1}, {Vector: []float32{1, 0}, TopK: 1}})
	if !errors.Is(err, ErrDimensionMismatch) || !strings.Contains(err.Error(), "query 1") {
		t.Errorf("wrong dimension: %v", err)
	}
	_, err = ix.QueryItemsBatch(ctx, []ItemQuery{{Vector: []float32{1, 0, 0}, TopK: 1, Filter: Filter{"$bad": 1}}})
	if !errors.Is(err, ErrInvalidFilter) || !strings.Contains(err.Error(), "query 0") {
		t.Errorf("bad filter: %v", err)
	}
}
