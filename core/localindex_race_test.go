package core

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Readers run while batches and single writes commit: every read sees the
// state before or after each commit, never a batch half applied, and never
// goes back in time. Run with -race.
func TestConcurrentReadersSeeWholeCommits(t *testing.T) {
	const items, rounds, readers = 40, 25, 4
	ix, _ := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"gen", "kind"}}})
	batch := func(gen int) {
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Error(err)
			return
		}
		for i := range items {
			v := []float32{1, float32(gen), float32(i), 0}
			if _, err := ix.UpsertItem(ctxb, IndexItem{ID: fmt.Sprint("i", i), Vector: v, Metadata: Metadata{"gen": gen, "kind": "batch"}}); err != nil {
				t.Error(err)
			}
		}
		if err := ix.EndUpdate(ctxb); err != nil {
			t.Error(err)
		}
	}
	batch(0)

	var done atomic.Bool
	var wg sync.WaitGroup
	check := func(r int, items []IndexItem, lastGen *int) {
		gen, singles, maxSingle := -1, 0, -1
		for _, it := range items {
			g := int(it.Metadata["gen"].(float64))
			if strings.HasPrefix(it.ID, "i") {
				if gen == -1 {
					gen = g
				} else if g != gen {
					t.Errorf("reader %d saw generations %d and %d together: half a batch", r, gen, g)
					return
				}
			} else {
				singles++
				maxSingle = max(maxSingle, g)
			}
		}
		if gen < *lastGen {
			t.Errorf("reader %d went back from generation %d to %d", r, *lastGen, gen)
		}
		*lastGen = gen
		// Round g commits the batch, then one single insert tagged g.
		if singles != gen && singles != gen+1 || maxSingle > gen {
			t.Errorf("reader %d: generation %d with %d single inserts (newest %d)", r, gen, singles, maxSingle)
		}
	}
	for r := range readers {
		wg.Go(func() {
			lastGen := 0
			q := []float32{1, 0, 0, 0}
			for !done.Load() {
				switch r % 2 {
				case 0:
					res, err := ix.QueryItems(ctxb, q, "", 1000, nil, false)
					if err != nil {
						t.Error(err)
						return
					}
					var its []IndexItem
					for _, x := range res {
						its = append(its, x.Item)
					}
					check(r, its, &lastGen)
				default:
					its, err := ix.ListItemsByMetadata(ctxb, Filter{"gen": Filter{"$gte": 0}})
					if err != nil {
						t.Error(err)
						return
					}
					check(r, its, &lastGen)
				}
				res, err := ix.QueryItems(ctxb, q, "", 5, Filter{"kind": "batch"}, false)
				if err != nil || len(res) != 5 {
					t.Errorf("filtered query = %d results, %v", len(res), err)
				}
			}
		})
	}
	for g := 0; g < rounds; g++ {
		if g > 0 {
			batch(g)
		}
		if _, err := ix.InsertItem(ctxb, IndexItem{ID: fmt.Sprint("s", g), Vector: []float32{0, 1, 0, 0}, Metadata: Metadata{"gen": g, "kind": "single"}}); err != nil {
			t.Error(err)
		}
	}
	done.Store(true)
	wg.Wait()
}
