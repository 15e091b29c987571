package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/foliovec/folio/core/internal/vecmath"
)

// clusteredUnitVectors returns n unit vectors of dimension d around
// `clusters` random centres: each is its centre plus Gaussian noise of
// spread relative to the centre's, so that many vectors crowd near each
// other, the hard case for an approximate scan.
func clusteredUnitVectors(seed uint64, n, d, clusters int, spread float64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, seed+1))
	centres := gaussianUnitVectors(seed+2, clusters, d)
	out := make([][]float32, n)
	noise := spread / math.Sqrt(float64(d))
	for i := range out {
		c := centres[r.IntN(clusters)]
		v := make([]float32, d)
		var sum float64
		for j := range v {
			x := float64(c[j]) + noise*r.NormFloat64()
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

// quantTestIndexes returns two loaded indexes over the same items: one
// whose queries scan codes of the given kind with the given rerank factor, one that
// scans exactly. They are built in memory, as a load from a file builds
// them.
func quantTestIndexes(t testing.TB, kind ScanCodes, vecs [][]float32, factor int, md func(i int) Metadata) (quant, exact *LocalIndex) {
	t.Helper()
	items := make([]IndexItem, len(vecs))
	for i, v := range vecs {
		items[i] = IndexItem{ID: fmt.Sprintf("item-%06d", i), Vector: v, Norm: vecmath.Length(v), Metadata: Metadata{}}
		if md != nil {
			items[i].Metadata = md(i)
		}
	}
	s, err := snapshotFromData(IndexData{Version: 1, MetadataConfig: MetadataConfig{Indexed: []string{"category"}}, Items: items}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := quantize(context.Background(), s, nil, kind)
	if err != nil {
		t.Fatal(err)
	}
	s.quant.Store(c)
	quant, err = NewLocalIndex(idxTestFolder, IndexOptions{Storage: newMemTestStorage(), Codec: jsonTestCodec{}, ScanCodes: kind, RerankFactor: factor})
	if err != nil {
		t.Fatal(err)
	}
	exact, err = NewLocalIndex(idxTestFolder, IndexOptions{Storage: newMemTestStorage(), Codec: jsonTestCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	quant.cur.Store(s)
	exact.cur.Store(s)
	return quant, exact
}

// recallAt10 is the mean share of the exact top 10 that the quantized
// query returns, over the queries.
func recallAt10(t testing.TB, quant, exact *LocalIndex, queries [][]float32, filter Filter) float64 {
	t.Helper()
	ctx := context.Background()
	found, total := 0, 0
	for _, q := range queries {
		want, err := exact.QueryItems(ctx, q, "", 10, filter, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := quant.QueryItems(ctx, q, "", 10, filter, false)
		if err != nil {
			t.Fatal(err)
		}
		ids := resultIDs(got)
		for _, r := range want {
			total++
			if slices.Contains(ids, r.Item.ID) {
				found++
			}
		}
		// Every score returned is exact: it equals the exact scan's score
		// of that item wherever both return it.
		for _, g := range got {
			for _, w := range want {
				if w.Item.ID == g.Item.ID && w.Score != g.Score {
					t.Fatalf("item %s: quantized score %v, exact %v", g.Item.ID, g.Score, w.Score)
				}
			}
		}
	}
	return float64(found) / float64(total)
}

// scanCodes are the codes a quantized scan can keep: every test of it runs
// on each.
var scanCodes = []ScanCodes{CodesInt8, CodesInt4, CodesInt4Int8}

// The default rerank factor finds the exact top 10 (recall@10 >= 0.999)
// on Gaussian data and on clustered data, loose and tight; a factor of 1
// (no re-rank beyond k) measurably does not, so the test can fail.
func TestQuantizedRecall(t *testing.T) {
	const n, d = 20_000, 384
	for _, data := range []struct {
		name string
		vecs [][]float32
		qs   [][]float32
	}{
		{"gaussian", gaussianUnitVectors(11, n, d), gaussianUnitVectors(12, 100, d)},
		{"clustered-0.5", clusteredUnitVectors(13, n, d, 50, 0.5), clusteredUnitVectors(13, 100, d, 50, 0.5)},
		{"clustered-0.2", clusteredUnitVectors(14, n, d, 50, 0.2), clusteredUnitVectors(14, 100, d, 50, 0.2)},
	} {
		for _, kind := range scanCodes {
			t.Run(data.name+"/"+string(kind), func(t *testing.T) {
				quant, exact := quantTestIndexes(t, kind, data.vecs, 0, nil)
				if got := recallAt10(t, quant, exact, data.qs, nil); got < 0.999 {
					t.Errorf("recall@10 with the default factor = %.4f, want >= 0.999", got)
				}
				one, _ := quantTestIndexes(t, kind, data.vecs, 1, nil)
				r1 := recallAt10(t, one, exact, data.qs, nil)
				t.Logf("recall@10: factor 1 %.4f", r1)
				if r1 == 1 {
					t.Errorf("recall@10 with factor 1 = 1: the data does not exercise the re-rank")
				}
			})
		}
	}
}

// sameResults fails unless the two result lists hold the same items with
// the same scores, in the same order.
func sameResults(t *testing.T, what string, got, want []QueryResult) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i].Item.ID != want[i].Item.ID || got[i].Score != want[i].Score {
			t.Fatalf("%s: result %d = %s %v, want %s %v", what, i, got[i].Item.ID, got[i].Score, want[i].Item.ID, want[i].Score)
		}
	}
}

// With filters (posting lists and scanned predicates), duplicates, zero
// vectors and a zero query, the quantized scan returns what the exact scan
// does: the same items, scores and order.
func TestQuantizedMatchesExact(t *testing.T) {
	for _, kind := range scanCodes {
		t.Run(string(kind), func(t *testing.T) { testQuantizedMatchesExact(t, kind) })
	}
}

func testQuantizedMatchesExact(t *testing.T, kind ScanCodes) {
	const n, d = 6000, 96
	vecs := gaussianUnitVectors(21, n, d)
	for i := 0; i < n; i += 97 {
		vecs[i] = make([]float32, d) // no direction: scores 0, ranks last
	}
	copy(vecs[5], vecs[4000]) // equal vectors rank in storage order
	md := func(i int) Metadata { return Metadata{"category": fmt.Sprint("c", i%10), "year": float64(1990 + i%35)} }
	quant, exact := quantTestIndexes(t, kind, vecs, 0, md)
	ctx := context.Background()
	queries := append(gaussianUnitVectors(22, 20, d), vecs[4000], make([]float32, d))
	filters := []Filter{
		nil,
		{"category": "c3"},
		{"year": Filter{"$gte": 2020}},
		{"category": Filter{"$in": []any{"c1", "c2"}}, "year": Filter{"$lt": 2000}},
		{"category": "none"},
	}
	for _, f := range filters {
		for _, k := range []int{1, 10, 50} {
			for qi, q := range queries {
				got, err := quant.QueryItems(ctx, q, "", k, f, false)
				if err != nil {
					t.Fatal(err)
				}
				want, err := exact.QueryItems(ctx, q, "", k, f, false)
				if err != nil {
					t.Fatal(err)
				}
				sameResults(t, fmt.Sprintf("filter %v k=%d query %d", f, k, qi), got, want)
			}
		}
	}
	// topK beyond the selection: everything, exactly ranked.
	got, _ := quant.QueryItems(ctx, queries[0], "", n+5, Filter{"category": "c3"}, false)
	want, _ := exact.QueryItems(ctx, queries[0], "", n+5, Filter{"category": "c3"}, false)
	sameResults(t, "topK beyond the selection", got, want)
}

// Every commit keeps the codes up to date: appends (incremental), replaced
// and deleted items (rebuilt), and a reload from the file.
func TestQuantizedFollowsWrites(t *testing.T) {
	for _, kind := range scanCodes {
		t.Run(string(kind), func(t *testing.T) { testQuantizedFollowsWrites(t, kind) })
	}
}

func testQuantizedFollowsWrites(t *testing.T, kind ScanCodes) {
	const d = 64
	ctx := context.Background()
	st := newMemTestStorage()
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, ScanCodes: kind, RerankFactor: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	vecs := gaussianUnitVectors(31, 3000, d)
	best := func(ix *LocalIndex, q []float32) string {
		t.Helper()
		res, err := ix.QueryItems(ctx, q, "", 1, nil, false)
		if err != nil || len(res) != 1 {
			t.Fatalf("query: %v %v", res, err)
		}
		if math.Abs(res[0].Score-1) > 1e-6 {
			t.Fatalf("best %s scores %v, want 1", res[0].Item.ID, res[0].Score)
		}
		return res[0].Item.ID
	}
	for b := range 3 { // appends, each quantizing only its rows
		items := make([]IndexItem, 1000)
		for i := range items {
			items[i] = IndexItem{ID: fmt.Sprint("v", b*1000+i), Vector: vecs[b*1000+i]}
		}
		if _, err := ix.BatchInsertItems(ctx, items); err != nil {
			t.Fatal(err)
		}
		if got := best(ix, vecs[b*1000+999]); got != fmt.Sprint("v", b*1000+999) {
			t.Fatalf("after append %d: best %s", b, got)
		}
	}
	// Replace v10's vector with v2500's negation, delete v2500.
	neg := make([]float32, d)
	for i, x := range vecs[2500] {
		neg[i] = -x
	}
	if _, err := ix.UpsertItem(ctx, IndexItem{ID: "v10", Vector: neg}); err != nil {
		t.Fatal(err)
	}
	if err := ix.DeleteItem(ctx, "v2500"); err != nil {
		t.Fatal(err)
	}
	if got := best(ix, neg); got != "v10" {
		t.Fatalf("after replace: best %s, want v10", got)
	}
	if got := best(ix, vecs[2999]); got != "v2999" {
		t.Fatalf("after delete: best %s, want v2999", got)
	}
	// The deleted item's slot is dead, not gone: the codes cover every
	// slot.
	if s := ix.cur.Load(); s.count() != 2999 || s.quantCodes() == nil || s.quantCodes().rows() != s.len() {
		t.Fatalf("after the writes: %d items, %d slots, codes for %d rows", s.count(), s.len(), s.quantCodes().rows())
	}
	again, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, ScanCodes: kind})
	if err != nil {
		t.Fatal(err)
	}
	if got := best(again, neg); got != "v10" {
		t.Fatalf("after reload: best %s, want v10", got)
	}
}

// Vectors of different lengths (files written by other tools) are
// scanned exactly; a negative factor is refused.
func TestQuantizedOptions(t *testing.T) {
	ctx := context.Background()
	st := newMemTestStorage()
	raw := `{"version":1,"metadata_config":{},"items":[` +
		`{"id":"a","metadata":{},"vector":[1,0,0],"norm":1},` +
		`{"id":"b","metadata":{},"vector":[0,1],"norm":1}]}`
	st.put(idxTestFolder+"/index.json", []byte(raw))
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, QuantizedScan: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.QueryItems(ctx, []float32{0, 1, 0}, "", 1, nil, false)
	if err != nil || len(res) != 1 || res[0].Item.ID != "b" {
		t.Fatalf("mixed index: %v %v", res, err)
	}
	if ix.cur.Load().quantCodes() != nil {
		t.Error("a mixed index has int8 codes")
	}
	if _, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, QuantizedScan: true, RerankFactor: -1}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("negative factor: %v", err)
	}
	if _, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, ScanCodes: "int2"}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("unknown codes: %v", err)
	}
	four, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, ScanCodes: CodesInt4})
	if err != nil || four.rerank != DefaultRerankFactorInt4 || four.codes != CodesInt4 {
		t.Errorf("4-bit codes: rerank %d, codes %q, %v", four.rerank, four.codes, err)
	}
	both, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, ScanCodes: CodesInt4Int8})
	if err != nil || both.rerank != DefaultRerankFactor || both.narrow != DefaultNarrowFactor || both.codes != CodesInt4Int8 {
		t.Errorf("4-bit and int8 codes: rerank %d, narrow %d, codes %q, %v", both.rerank, both.narrow, both.codes, err)
	}
	if _, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, ScanCodes: CodesInt4Int8, NarrowFactor: -1}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("negative narrow factor: %v", err)
	}
	for _, opts := range []IndexOptions{{ScanCodes: "int2"}, {RerankFactor: -1}, {NarrowFactor: -1}} {
		if err := opts.Check(); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%+v.Check() = %v, want ErrInvalidArgument", opts, err)
		}
	}
	if err := (IndexOptions{ScanCodes: CodesInt4Int8, RerankFactor: 3, NarrowFactor: 30}).Check(); err != nil {
		t.Errorf("Check of good options: %v", err)
	}
}

// Quantized queries run while a writer appends and replaces items: each
// answer is a whole commit's (under -race, the codes are never written
// while read).
func TestQuantizedConcurrentWrites(t *testing.T) {
	for _, kind := range scanCodes {
		t.Run(string(kind), func(t *testing.T) { testQuantizedConcurrentWrites(t, kind) })
	}
}

func testQuantizedConcurrentWrites(t *testing.T, kind ScanCodes) {
	const d = 32
	ctx := context.Background()
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: newMemTestStorage(), Codec: jsonTestCodec{}, ScanCodes: kind, RerankFactor: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	vecs := gaussianUnitVectors(41, 400, d)
	done := make(chan struct{})
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				res, err := ix.QueryItems(ctx, vecs[i%len(vecs)], "", 5, nil, false)
				if err != nil {
					errs <- err
					return
				}
				for _, r := range res {
					if r.Score < -1-1e-6 || r.Score > 1+1e-6 {
						errs <- fmt.Errorf("score %v", r.Score)
						return
					}
				}
			}
		}()
	}
	for i, v := range vecs {
		if _, err := ix.UpsertItem(ctx, IndexItem{ID: fmt.Sprint("v", i%300), Vector: v}); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// Recall never drops silently on adversarial data: 300 near-duplicates of
// one vector (closer together than int8 codes can tell apart) among
// Gaussian vectors, queried with that vector itself and with a neighbour.
// When the candidates the factor keeps cover the group, the re-rank
// returns the exact top k; a factor that keeps fewer measurably does not
// (so the test can fail); a NaN query is refused.
func TestQuantizedNearDuplicates(t *testing.T) {
	for _, kind := range scanCodes {
		t.Run(string(kind), func(t *testing.T) { testQuantizedNearDuplicates(t, kind) })
	}
}

func testQuantizedNearDuplicates(t *testing.T, kind ScanCodes) {
	const n, d, group, k = 5000, 64, 300, 10
	vecs := gaussianUnitVectors(31, n, d)
	base := vecs[0]
	noise := gaussianUnitVectors(32, group, d)
	for i := 1; i <= group; i++ {
		v := make([]float32, d)
		for j := range v {
			v[j] = base[j] + 2e-4*noise[i-1][j]
		}
		vecs[n-i] = v // the group's rows are the last, after everything they tie with
	}
	queries := [][]float32{base, vecs[n-7]}
	ctx := context.Background()
	covering, exact := quantTestIndexes(t, kind, vecs, (group+k)/k+1, nil)
	for qi, q := range queries {
		got, err := covering.QueryItems(ctx, q, "", k, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exact.QueryItems(ctx, q, "", k, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, fmt.Sprintf("query %d, candidates covering the group", qi), got, want)
	}
	narrow, _ := quantTestIndexes(t, kind, vecs, 1, nil)
	differs := false
	for _, q := range queries {
		got, _ := narrow.QueryItems(ctx, q, "", k, nil, false)
		want, _ := exact.QueryItems(ctx, q, "", k, nil, false)
		differs = differs || !slices.EqualFunc(got, want, func(a, b QueryResult) bool { return a.Item.ID == b.Item.ID })
	}
	if !differs {
		t.Error("with factor 1 the near-duplicates still rank exactly: the data does not exercise the re-rank")
	}
	bad := slices.Clone(base)
	bad[3] = float32(math.NaN())
	if _, err := covering.QueryItems(ctx, bad, "", k, nil, false); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("a NaN query: %v, want ErrInvalidArgument", err)
	}
}
