package core

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// Concurrent unfiltered QueryItems calls share passes over the vectors
// (several segments here, with a commit in between): each gets exactly the
// answer it gets alone, and a call after a commit sees the commit.
func TestConcurrentQueriesShareAPassAndAnswerAsAlone(t *testing.T) {
	ctx := context.Background()
	ix, _ := newCreatedIndex(t, CreateIndexConfig{})
	const d, n = 8, 3*8192 + 11
	r := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		v := make([]float32, d)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	items := make([]IndexItem, n)
	for i := range items {
		items[i] = IndexItem{ID: fmt.Sprint(i), Vector: vec()}
	}
	if _, err := ix.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	queries := make([][]float32, 24)
	for i := range queries {
		queries[i] = vec()
	}
	alone := make([][]QueryResult, len(queries))
	for i, q := range queries {
		var err error
		if alone[i], err = ix.QueryItems(ctx, q, "", 1+i%12, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	got := make([][]QueryResult, len(queries))
	var wg sync.WaitGroup
	for i, q := range queries {
		wg.Go(func() {
			var err error
			if got[i], err = ix.QueryItems(ctx, q, "", 1+i%12, nil, false); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i := range queries {
		if len(got[i]) != len(alone[i]) {
			t.Fatalf("query %d: %d results, alone %d", i, len(got[i]), len(alone[i]))
		}
		for j := range got[i] {
			if got[i][j].Item.ID != alone[i][j].Item.ID || got[i][j].Score != alone[i][j].Score {
				t.Fatalf("query %d rank %d: %s %v, alone %s %v", i, j, got[i][j].Item.ID, got[i][j].Score, alone[i][j].Item.ID, alone[i][j].Score)
			}
		}
	}
	// An item equal to the first query, committed while others query,
	// is the best answer of every later call.
	var stop sync.WaitGroup
	done := make(chan struct{})
	for _, q := range queries[1:4] {
		stop.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := ix.QueryItems(ctx, q, "", 3, nil, false); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	if _, err := ix.InsertItem(ctx, IndexItem{ID: "exact", Vector: queries[0]}); err != nil {
		t.Fatal(err)
	}
	res, err := ix.QueryItems(ctx, queries[0], "", 1, nil, false)
	close(done)
	stop.Wait()
	if err != nil || len(res) != 1 || res[0].Item.ID != "exact" {
		t.Fatalf("after the commit: %v %v, want the item just inserted", res, err)
	}
}
