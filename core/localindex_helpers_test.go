package core

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

const idxTestFolder = "idx"

// newTestIndex returns an index on fresh test storage, not yet created.
func newTestIndex(t testing.TB) (*LocalIndex, *memTestStorage) {
	t.Helper()
	st := newMemTestStorage()
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	return ix, st
}

// newCreatedIndex returns a created index with cfg.
func newCreatedIndex(t testing.TB, cfg CreateIndexConfig) (*LocalIndex, *memTestStorage) {
	t.Helper()
	ix, st := newTestIndex(t)
	if err := ix.CreateIndex(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	return ix, st
}

// reopen returns a new LocalIndex over the same storage, so the next read
// loads the index file.
func reopen(t testing.TB, st *memTestStorage) *LocalIndex {
	t.Helper()
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func mustInsert(t testing.TB, ix *LocalIndex, id string, vec []float32, md Metadata) IndexItem {
	t.Helper()
	it, err := ix.InsertItem(context.Background(), IndexItem{ID: id, Vector: vec, Metadata: md})
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func itemIDs(items []IndexItem) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

func resultIDs(rs []QueryResult) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Item.ID)
	}
	return out
}

func mustList(t testing.TB, ix *LocalIndex) []IndexItem {
	t.Helper()
	items, err := ix.ListItems(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// gaussianUnitVectors returns n deterministic vectors of dimension d drawn
// from a standard normal distribution and scaled to unit length.
func gaussianUnitVectors(seed uint64, n, d int) [][]float32 {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([][]float32, n)
	backing := make([]float32, n*d)
	for i := range out {
		v := backing[i*d : (i+1)*d : (i+1)*d]
		var sum float64
		for j := range v {
			x := r.NormFloat64()
			v[j] = float32(x)
			sum += x * x
		}
		inv := 1 / math.Sqrt(sum)
		for j := range v {
			v[j] = float32(float64(v[j]) * inv)
		}
		out[i] = v
	}
	return out
}

// bruteForce ranks items by exact float64 cosine similarity to q among those
// keep accepts: zero-norm items last with score 0, ties in item order.
func bruteForce(items []IndexItem, q []float32, k int, keep func(IndexItem) bool) []string {
	type hit struct {
		id    string
		score float64
		def   bool
		pos   int
	}
	var qn float64
	for _, x := range q {
		qn += float64(x) * float64(x)
	}
	qn = math.Sqrt(qn)
	var hits []hit
	for i, it := range items {
		if keep != nil && !keep(it) {
			continue
		}
		var dot, n float64
		for j := range min(len(q), len(it.Vector)) {
			dot += float64(q[j]) * float64(it.Vector[j])
		}
		for _, x := range it.Vector {
			n += float64(x) * float64(x)
		}
		n = math.Sqrt(n)
		h := hit{id: it.ID, pos: i}
		if n != 0 && qn != 0 {
			h.score, h.def = dot/(qn*n), true
		}
		hits = append(hits, h)
	}
	slices.SortFunc(hits, func(a, b hit) int {
		switch {
		case a.def != b.def:
			if a.def {
				return -1
			}
			return 1
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.pos - b.pos
	})
	out := []string{}
	for i := 0; i < len(hits) && i < k; i++ {
		out = append(out, hits[i].id)
	}
	return out
}
