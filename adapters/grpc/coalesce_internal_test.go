package grpcserver

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
)

// coalesceIndex is an index of n random dim-dimensional vectors with a
// "group" metadata field.
func coalesceIndex(t *testing.T, n, dim int) *core.LocalIndex {
	t.Helper()
	ctx := context.Background()
	ix, err := core.NewLocalIndex("ix", core.IndexOptions{Storage: core.NewMemoryStorage(), Codec: reference.Codec{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	if err := ix.BeginUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		if _, err := ix.InsertItem(ctx, core.IndexItem{Vector: v, Metadata: core.Metadata{"group": float64(i % 4)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.EndUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	return ix
}

func sameResults(a, b []core.QueryResult) bool {
	return slices.EqualFunc(a, b, func(x, y core.QueryResult) bool { return x.Item.ID == y.Item.ID && x.Score == y.Score })
}

// Concurrent calls are answered in batches, each answer what the call gets
// alone: unfiltered, filtered, and an invalid one (its own error, the
// others unharmed).
func TestCoalescedQueriesAnswerAsAlone(t *testing.T) {
	ctx := context.Background()
	const dim = 32
	ix := coalesceIndex(t, 20_000, dim)
	rng := rand.New(rand.NewPCG(3, 4))
	queries := make([]core.ItemQuery, 64)
	for i := range queries {
		n := dim
		if i == 17 {
			n = dim - 1 // a dimension mismatch
		}
		v := make([]float32, n)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		queries[i] = core.ItemQuery{Vector: v, TopK: 1 + i%12}
		if i%3 == 0 {
			queries[i].Filter = core.Filter{"group": float64(i % 4)}
		}
	}
	c := itemCoalescer(ix)
	var batches, batched atomic.Int64
	c.observe = func(n int) { batches.Add(1); batched.Add(int64(n)) }
	for round := range 5 {
		var wg sync.WaitGroup
		start := make(chan struct{})
		got := make([][]core.QueryResult, len(queries))
		errs := make([]error, len(queries))
		for i, q := range queries {
			wg.Go(func() {
				<-start
				got[i], errs[i] = c.query(ctx, q)
			})
		}
		close(start)
		wg.Wait()
		for i, q := range queries {
			want, wantErr := ix.Query(ctx, q)
			if (errs[i] == nil) != (wantErr == nil) || !errors.Is(errs[i], core.ErrDimensionMismatch) && i == 17 {
				t.Fatalf("round %d, query %d: error %v, alone %v", round, i, errs[i], wantErr)
			}
			if !sameResults(got[i], want) {
				t.Fatalf("round %d, query %d: %d results differ from the call alone", round, i, len(got[i]))
			}
		}
	}
	if batches.Load() == 0 || batched.Load() <= batches.Load() {
		t.Fatalf("%d batches of %d calls in all: the calls were not coalesced", batches.Load(), batched.Load())
	}
	t.Logf("%d batches held %d of %d calls", batches.Load(), batched.Load(), 5*len(queries))
}

// A call that gives up while queued returns its context's error; the batch
// it was in still answers the others.
func TestCoalescedCallCancelledWhileQueued(t *testing.T) {
	ix := coalesceIndex(t, 2_000, 8)
	c := itemCoalescer(ix)
	release := make(chan struct{})
	c.running = true // a scan is running: calls queue
	cancelled, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.query(cancelled, core.ItemQuery{Vector: make([]float32, 8), TopK: 1})
		errc <- err
	}()
	other := make(chan []core.QueryResult, 1)
	go func() {
		<-release
		res, err := c.query(context.Background(), core.ItemQuery{Vector: []float32{1, 0, 0, 0, 0, 0, 0, 0}, TopK: 3})
		if err != nil {
			t.Error(err)
		}
		other <- res
	}()
	waitQueued(c, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	close(release)
	waitQueued(c, 2)
	c.next() // the scan ends: the queue is answered
	if res := <-other; len(res) != 3 {
		t.Fatalf("the other call got %d results", len(res))
	}
}

// waitQueued waits until n calls are queued on c.
func waitQueued[Q, R any](c *coalescer[Q, R], n int) {
	for {
		c.mu.Lock()
		queued := len(c.pending)
		c.mu.Unlock()
		if queued == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// wordEmbeddings hashes words into 16 dimensions: enough for queries that
// match some documents better than others.
type wordEmbeddings struct{}

func (wordEmbeddings) MaxTokens() int { return 1000 }

func (wordEmbeddings) CreateEmbeddings(_ context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	out := make([][]float32, len(inputs))
	for i, in := range inputs {
		v := make([]float32, 16)
		v[0] = 0.01
		for _, w := range strings.Fields(strings.ToLower(in)) {
			h := 0
			for _, c := range w {
				h = h*31 + int(c)
			}
			v[(h%16+16)%16]++
		}
		out[i] = v
	}
	return core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: out}, nil
}

// charTokens counts one token per byte.
type charTokens struct{}

func (charTokens) Encode(s string) []int {
	out := make([]int, len(s))
	for i := range s {
		out[i] = int(s[i])
	}
	return out
}

func (charTokens) Decode(ids []int) string {
	b := make([]byte, len(ids))
	for i, id := range ids {
		b[i] = byte(id)
	}
	return string(b)
}

// Concurrent QueryDocuments calls are batched too, each answered as alone.
func TestCoalescedDocumentQueriesAnswerAsAlone(t *testing.T) {
	ctx := context.Background()
	d, err := core.NewLocalDocumentIndex(core.LocalDocumentIndexConfig{
		FolderPath: "docs", Embeddings: wordEmbeddings{}, Tokenizer: charTokens{},
		IndexOptions: core.IndexOptions{Storage: core.NewMemoryStorage(), Codec: reference.Codec{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("cats purr rockets burn bread rises yeast bakery sun fuel orbit golden crust dough mice")
	for i := range 40 {
		text := strings.Join([]string{words[i%len(words)], words[(i*7)%len(words)], words[(i*3)%len(words)], "and more"}, " ")
		if _, err := d.UpsertDocument(ctx, fmt.Sprintf("doc%02d", i), text, "", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	c := documentCoalescer(d)
	var batches atomic.Int64
	c.observe = func(int) { batches.Add(1) }
	queries := make([]core.DocumentQuery, 48)
	for i := range queries {
		queries[i] = core.DocumentQuery{Query: words[i%len(words)] + " " + words[(i+5)%len(words)],
			Options: core.DocumentQueryOptions{IsBm25: i%2 == 0, MaxDocuments: 3 + i%4}}
	}
	got := make([][]*core.LocalDocumentResult, len(queries))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, q := range queries {
		wg.Go(func() {
			<-start
			var err error
			if got[i], err = c.query(ctx, q); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	for i, q := range queries {
		want, err := d.QueryDocuments(ctx, q.Query, &q.Options)
		if err != nil {
			t.Fatal(err)
		}
		if len(got[i]) != len(want) {
			t.Fatalf("query %d: %d documents, alone %d", i, len(got[i]), len(want))
		}
		for j := range want {
			if got[i][j].URI() != want[j].URI() || got[i][j].Score != want[j].Score {
				t.Fatalf("query %d, document %d: %s %v, alone %s %v", i, j, got[i][j].URI(), got[i][j].Score, want[j].URI(), want[j].Score)
			}
		}
	}
	if batches.Load() == 0 {
		t.Fatal("no batch: the calls were not coalesced")
	}
}

// itemCoalescer batches ix's QueryItems calls: the coalescer's own tests
// run it over item queries, the simplest it batches.
func itemCoalescer(ix *core.LocalIndex) *coalescer[core.ItemQuery, []core.QueryResult] {
	return &coalescer[core.ItemQuery, []core.QueryResult]{solo: ix.Query, batch: ix.QueryItemsBatch}
}
