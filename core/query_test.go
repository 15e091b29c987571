package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestQueryItems(t *testing.T) {
	three := func(t *testing.T) *LocalIndex {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{1, 0, 0}, nil)
		mustInsert(t, ix, "2", []float32{0, 1, 0}, nil)
		mustInsert(t, ix, "3", []float32{0, 0, 1}, nil)
		return ix
	}
	t.Run("a query on an empty index returns []", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		got, err := ix.QueryItems(ctxb, []float32{1, 2}, "", 3, nil, false)
		if err != nil || got == nil || len(got) != 0 {
			t.Fatalf("= %v, %v", got, err)
		}
	})
	t.Run("the only item, orthogonal to the query, is returned with score 0", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{1, 0}, nil)
		got, err := ix.QueryItems(ctxb, []float32{0, 1}, "", 1, nil, false)
		if err != nil || len(got) != 1 || got[0].Item.ID != "1" || got[0].Score != 0 {
			t.Fatalf("= %+v, %v", got, err)
		}
	})
	t.Run("fewer items than topK returns all, best first", func(t *testing.T) {
		ix := three(t)
		mustInsert(t, ix, "4", []float32{0, 0.5, 1}, nil)
		got, err := ix.QueryItems(ctxb, []float32{0, 0, 1}, "", 10, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if ids := resultIDs(got); !slices.Equal(ids, []string{"3", "4", "1", "2"}) {
			t.Fatalf("ids = %v", ids)
		}
		if got[0].Score != 1 {
			t.Fatalf("best score = %v; want 1", got[0].Score)
		}
	})
	t.Run("topK 2 of 5 returns 2", func(t *testing.T) {
		ix := three(t)
		mustInsert(t, ix, "4", []float32{1, 1, 0}, nil)
		mustInsert(t, ix, "5", []float32{0, 1, 1}, nil)
		got, err := ix.QueryItems(ctxb, []float32{1, 1, 1}, "", 2, nil, false)
		if err != nil || len(got) != 2 {
			t.Fatalf("= %v, %v", resultIDs(got), err)
		}
	})
	t.Run("a huge topK returns every item", func(t *testing.T) {
		ix := three(t)
		got, err := ix.QueryItems(ctxb, []float32{1, 1, 1}, "", math.MaxInt, nil, true)
		if err != nil || len(got) != 3 {
			t.Fatalf("= %v, %v", resultIDs(got), err)
		}
	})
	t.Run("topK 0 or negative returns []", func(t *testing.T) {
		ix := three(t)
		for _, k := range []int{0, -1} {
			got, err := ix.QueryItems(ctxb, []float32{1, 1, 1}, "", k, nil, false)
			if err != nil || len(got) != 0 {
				t.Fatalf("topK %d = %v, %v", k, resultIDs(got), err)
			}
		}
	})
	t.Run("a metadata filter restricts the candidates", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "food", []float32{1, 0}, Metadata{"category": "food"})
		mustInsert(t, ix, "drink", []float32{0.2, 1}, Metadata{"category": "drink"})
		got, err := ix.QueryItems(ctxb, []float32{1, 0}, "", 1, Filter{"category": "drink"}, false)
		if err != nil || !slices.Equal(resultIDs(got), []string{"drink"}) {
			t.Fatalf("= %v, %v", resultIDs(got), err)
		}
	})
	t.Run("results with a side-car carry its full metadata", func(t *testing.T) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"a"}}})
		it := mustInsert(t, ix, "1", []float32{1, 0}, Metadata{"a": "x", "b": "y"})
		got, err := reopen(t, st).QueryItems(ctxb, []float32{1, 0}, "", 1, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Item.MetadataFile != it.MetadataFile || !reflect.DeepEqual(got[0].Item.Metadata, Metadata{"a": "x", "b": "y"}) {
			t.Fatalf("result = %+v", got[0].Item)
		}
		// The stored item keeps its inline metadata.
		stored, _, _ := ix.GetItem(ctxb, "1")
		if !reflect.DeepEqual(stored.Metadata, Metadata{"a": "x"}) {
			t.Fatalf("stored metadata = %v", stored.Metadata)
		}
	})
	t.Run("a missing side-car fails the query", func(t *testing.T) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"a"}}})
		it := mustInsert(t, ix, "1", []float32{1, 0}, Metadata{"a": "x", "b": "y"})
		_ = st.DeleteFile(ctxb, idxTestFolder+"/"+it.MetadataFile)
		if _, err := ix.QueryItems(ctxb, []float32{1, 0}, "", 1, nil, false); err == nil {
			t.Fatal("query succeeded without its side-car")
		}
	})
	t.Run("equal scores rank in insertion order", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		for i := range 50 {
			mustInsert(t, ix, fmt.Sprint(i), []float32{1, float32(i % 2)}, nil)
		}
		got, err := ix.QueryItems(ctxb, []float32{1, 0}, "", 30, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for i := 0; i < 50; i += 2 {
			want = append(want, fmt.Sprint(i))
		}
		for i := 1; len(want) < 30; i += 2 {
			want = append(want, fmt.Sprint(i))
		}
		if ids := resultIDs(got); !slices.Equal(ids, want) {
			t.Fatalf("ids = %v; want %v", ids, want)
		}
	})
}

// Fix: zero-norm items and queries never poison the top-K.
func TestQueryZeroNorm(t *testing.T) {
	t.Run("zero-norm items score 0 and rank after every topk.Scored item", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "zero1", []float32{0, 0}, nil)
		mustInsert(t, ix, "neg", []float32{-1, 0}, nil)
		mustInsert(t, ix, "zero2", []float32{0, 0}, nil)
		mustInsert(t, ix, "pos", []float32{1, 1}, nil)
		got, err := ix.QueryItems(ctxb, []float32{1, 0}, "", 4, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if ids := resultIDs(got); !slices.Equal(ids, []string{"pos", "neg", "zero1", "zero2"}) {
			t.Fatalf("ids = %v", ids)
		}
		if got[2].Score != 0 || got[3].Score != 0 || got[1].Score != -1 {
			t.Fatalf("scores = %v %v %v", got[1].Score, got[2].Score, got[3].Score)
		}
		got, _ = ix.QueryItems(ctxb, []float32{1, 0}, "", 2, nil, false)
		if ids := resultIDs(got); !slices.Equal(ids, []string{"pos", "neg"}) {
			t.Fatalf("top 2 = %v; zero-norm items must not displace topk.Scored ones", ids)
		}
	})
	t.Run("a zero query returns the first topK items with score 0", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		for i := range 5 {
			mustInsert(t, ix, fmt.Sprint(i), []float32{float32(i), 1}, Metadata{"odd": i%2 == 1})
		}
		got, err := ix.QueryItems(ctxb, []float32{0, 0}, "", 2, Filter{"odd": true}, false)
		if err != nil {
			t.Fatal(err)
		}
		if ids := resultIDs(got); !slices.Equal(ids, []string{"1", "3"}) || got[0].Score != 0 {
			t.Fatalf("= %v", got)
		}
	})
}

// Fix: NaN and ±Inf are refused in vectors, on insert and query.
func TestNonFiniteVectors(t *testing.T) {
	for _, x := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		t.Run(fmt.Sprintf("%v in a vector is ErrInvalidArgument", x), func(t *testing.T) {
			ix, _ := newCreatedIndex(t, CreateIndexConfig{})
			mustInsert(t, ix, "ok", []float32{1, 2}, nil)
			if _, err := ix.InsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{1, x}}); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("InsertItem = %v", err)
			}
			if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "ok", Vector: []float32{x, 1}}); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("UpsertItem = %v", err)
			}
			if _, err := ix.QueryItems(ctxb, []float32{x, 1}, "", 1, nil, false); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("QueryItems = %v", err)
			}
		})
	}
}

// Vectors of another length are refused once the index has a dimension.
func TestDimensionMismatch(t *testing.T) {
	t.Run("an insert of another length is ErrDimensionMismatch", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{1, 2, 3}, nil)
		if _, err := ix.InsertItem(ctxb, IndexItem{ID: "2", Vector: []float32{1, 2}}); !errors.Is(err, ErrDimensionMismatch) {
			t.Fatalf("InsertItem = %v", err)
		}
		if _, err := ix.BatchInsertItems(ctxb, []IndexItem{{ID: "3", Vector: []float32{1, 2, 3}}, {ID: "4", Vector: []float32{1}}}); !errors.Is(err, ErrDimensionMismatch) {
			t.Fatalf("BatchInsertItems = %v", err)
		}
		if n := len(mustList(t, ix)); n != 1 {
			t.Fatalf("items = %d", n)
		}
	})
	t.Run("a query of another length is ErrDimensionMismatch", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{1, 2, 3}, nil)
		if _, err := ix.QueryItems(ctxb, []float32{1, 2}, "", 1, nil, false); !errors.Is(err, ErrDimensionMismatch) {
			t.Fatalf("QueryItems = %v", err)
		}
	})
	t.Run("the dimension is free again once the index is empty, and replacing the only item may change it", func(t *testing.T) {
		ix, _ := newCreatedIndex(t, CreateIndexConfig{})
		mustInsert(t, ix, "1", []float32{1, 2, 3}, nil)
		if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{1, 2}}); err != nil {
			t.Fatal(err)
		}
		if err := ix.DeleteItem(ctxb, "1"); err != nil {
			t.Fatal(err)
		}
		mustInsert(t, ix, "2", []float32{1}, nil)
	})
	t.Run("an index file with mixed lengths opens and scores over the shorter prefix", func(t *testing.T) {
		st := newMemTestStorage()
		data := IndexData{Version: 1, Items: []IndexItem{
			{ID: "long", Vector: []float32{1, 0, 1}, Norm: math.Sqrt2, Metadata: Metadata{}},
			{ID: "short", Vector: []float32{1}, Norm: 1, Metadata: Metadata{}},
			{ID: "empty", Vector: []float32{}, Norm: 0, Metadata: Metadata{}},
		}}
		raw, _ := jsonTestCodec{}.SerializeIndex(data)
		st.put(idxTestFolder+"/index.json", raw)
		ix := reopen(t, st)
		got, err := ix.QueryItems(ctxb, []float32{1, 0}, "", 3, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		// long: dot over 2 = 1, norms 1 and √2 → 1/√2; short: dot 1 / (1·1) = 1.
		if ids := resultIDs(got); !slices.Equal(ids, []string{"short", "long", "empty"}) {
			t.Fatalf("ids = %v", ids)
		}
		if math.Abs(got[1].Score-1/math.Sqrt2) > 1e-7 || got[0].Score != 1 {
			t.Fatalf("scores = %v, %v", got[0].Score, got[1].Score)
		}
		// A mixed index accepts vectors of its first item's length.
		mustInsert(t, ix, "new", []float32{0, 0, 2}, nil)
		if _, err := ix.InsertItem(ctxb, IndexItem{ID: "bad", Vector: []float32{1}}); !errors.Is(err, ErrDimensionMismatch) {
			t.Fatalf("InsertItem = %v", err)
		}
		if n := len(mustList(t, reopen(t, st))); n != 4 {
			t.Fatalf("items = %d", n)
		}
	})
}

// The scan returns what an exact float64 brute-force scan returns, on every
// path: one goroutine and several, filtered with posting lists and without,
// after appends, replacements and deletes.
func TestQueryMatchesBruteForce(t *testing.T) {
	const n, d = 10000, 16
	vecs := gaussianUnitVectors(7, n, d)
	items := make([]IndexItem, n)
	for i := range items {
		items[i] = IndexItem{ID: fmt.Sprintf("i%05d", i), Vector: vecs[i], Metadata: Metadata{
			"category": fmt.Sprint("c", i%10),
			"year":     2000 + i%25,
			"even":     i%2 == 0,
		}}
	}
	items[17].Vector = make([]float32, d) // a zero-norm item
	for _, indexed := range [][]string{nil, {"category", "year"}} {
		ix, st := newCreatedIndex(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: indexed}})
		if _, err := ix.BatchInsertItems(ctxb, items[:n/2]); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.BatchInsertItems(ctxb, items[n/2:]); err != nil { // append path
			t.Fatal(err)
		}
		model := slices.Clone(items)
		// Replace and delete some items (rebuild path).
		r := rand.New(rand.NewPCG(1, 2))
		if err := ix.BeginUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		for range 50 {
			i := r.IntN(len(model))
			model[i].Vector = gaussianUnitVectors(uint64(i), 1, d)[0]
			if _, err := ix.UpsertItem(ctxb, model[i]); err != nil {
				t.Fatal(err)
			}
			j := r.IntN(len(model))
			if err := ix.DeleteItem(ctxb, model[j].ID); err != nil {
				t.Fatal(err)
			}
			model = slices.Delete(model, j, j+1)
		}
		if err := ix.EndUpdate(ctxb); err != nil {
			t.Fatal(err)
		}
		inline := func(it IndexItem) Metadata {
			if indexed == nil {
				return it.Metadata
			}
			out := Metadata{}
			for _, k := range indexed {
				out[k] = it.Metadata[k]
			}
			return out
		}
		filters := []Filter{
			nil,
			{"category": "c3"},
			{"category": Filter{"$in": []any{"c1", "c2"}}, "year": Filter{"$gte": 2010}},
			{"year": 2004},
			{"$or": []any{Filter{"category": "c0"}, Filter{"year": Filter{"$lt": 2003}}}},
			{"category": "nope"},
		}
		for _, reader := range []*LocalIndex{ix, reopen(t, st)} {
			for qi, q := range gaussianUnitVectors(99, 3, d) {
				for fi, f := range filters {
					match, err := compileFilter(f)
					if err != nil {
						t.Fatal(err)
					}
					ranking := bruteForce(model, q, 100, func(it IndexItem) bool { return match(inline(it)) })
					for _, k := range []int{1, 10, 100} {
						got, err := reader.QueryItems(ctxb, q, "", k, f, false)
						if err != nil {
							t.Fatal(err)
						}
						want := ranking[:min(k, len(ranking))]
						if ids := resultIDs(got); !slices.Equal(ids, want) {
							t.Fatalf("indexed %v query %d filter %d k %d:\n got %v\nwant %v", indexed, qi, fi, k, ids, want)
						}
					}
				}
			}
		}
	}
}

func TestQueryCancelled(t *testing.T) {
	ix, _ := newCreatedIndex(t, CreateIndexConfig{})
	mustInsert(t, ix, "1", []float32{1}, nil)
	ctx, cancel := context.WithCancel(ctxb)
	cancel()
	if _, err := ix.InsertItem(ctx, IndexItem{ID: "2", Vector: []float32{1}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("InsertItem = %v; want context.Canceled", err)
	}
}

// Equal vectors score exactly equal (and so rank in insertion order)
// whichever way they were stored: batch, single insert, replacement,
// reload from the file.
func TestEqualVectorsTieWhateverTheirPath(t *testing.T) {
	v := gaussianUnitVectors(5, 1, 37)[0]
	ix, st := newCreatedIndex(t, CreateIndexConfig{})
	if _, err := ix.BatchInsertItems(ctxb, []IndexItem{{ID: "a", Vector: v}, {ID: "x", Vector: gaussianUnitVectors(6, 1, 37)[0]}}); err != nil {
		t.Fatal(err)
	}
	mustInsert(t, ix, "b", v, nil)
	if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "x", Vector: v}); err != nil { // rebuild path
		t.Fatal(err)
	}
	mustInsert(t, ix, "c", v, nil)
	q := gaussianUnitVectors(7, 1, 37)[0]
	for _, reader := range []*LocalIndex{ix, reopen(t, st)} {
		got, err := reader.QueryItems(ctxb, q, "", 4, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if ids := resultIDs(got); !slices.Equal(ids, []string{"a", "x", "b", "c"}) {
			t.Fatalf("ids = %v", ids)
		}
		for _, r := range got[1:] {
			if r.Score != got[0].Score {
				t.Fatalf("scores differ: %v vs %v", r.Score, got[0].Score)
			}
		}
	}
}
