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
	"github.com/foliovec/folio/conformance/testkit"
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
	c.observe = func(n, _ int) { batches.Add(1); batched.Add(int64(n)) }
	// The first call of a round is answered alone; it waits (up to a
	// second) for another call to queue, so that batches form even where
	// the scheduler would run it to its end before starting the others
	// (one CPU, a busy machine).
	solo := c.solo
	var firstOfRound atomic.Bool
	c.solo = func(ctx context.Context, q core.ItemQuery) ([]core.QueryResult, error) {
		if firstOfRound.Swap(false) {
			for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				c.mu.Lock()
				queued := len(c.pending)
				c.mu.Unlock()
				if queued > 0 {
					break
				}
			}
		}
		return solo(ctx, q)
	}
	for round := range 5 {
		firstOfRound.Store(true)
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

// A call that gives up while queued returns its context's error and leaves
// the queue: its query is never run, and the next batch answers the others.
func TestCoalescedCallCancelledWhileQueued(t *testing.T) {
	ix := coalesceIndex(t, 2_000, 8)
	c := itemCoalescer(ix)
	var ran atomic.Int64 // queries run, alone or in a batch
	solo, batch := c.solo, c.batch
	c.solo = func(ctx context.Context, q core.ItemQuery) ([]core.QueryResult, error) {
		ran.Add(1)
		return solo(ctx, q)
	}
	c.batch = func(ctx context.Context, qs []core.ItemQuery) ([][]core.QueryResult, error) {
		ran.Add(int64(len(qs)))
		return batch(ctx, qs)
	}
	c.running = true // a scan is running: calls queue
	cancelled, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.query(cancelled, core.ItemQuery{Vector: make([]float32, 8), TopK: 1})
		errc <- err
	}()
	waitQueued(c, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	waitQueued(c, 0)
	other := make(chan []core.QueryResult, 1)
	go func() {
		res, err := c.query(context.Background(), core.ItemQuery{Vector: []float32{1, 0, 0, 0, 0, 0, 0, 0}, TopK: 3})
		if err != nil {
			t.Error(err)
		}
		other <- res
	}()
	waitQueued(c, 1)
	c.next() // the scan ends: the queue is answered
	if res := <-other; len(res) != 3 {
		t.Fatalf("the other call got %d results", len(res))
	}
	if n := ran.Load(); n != 1 {
		t.Errorf("%d queries ran, want 1: the cancelled one ran too", n)
	}
}

// A batch whose callers have all left is cancelled: 40 callers that give up
// leave no work behind them, and the next small call is answered at once.
func TestCoalescedBatchCancelledWhenAllLeave(t *testing.T) {
	started := make(chan struct{}, 1)
	var stopped atomic.Bool
	c := &coalescer[int, int]{
		solo: func(ctx context.Context, q int) (int, error) { return q, nil },
		batch: func(ctx context.Context, qs []int) ([]int, error) {
			if qs[0] < 0 { // the callers who leave: work until cancelled
				started <- struct{}{}
				<-ctx.Done()
				stopped.Store(true)
				return nil, ctx.Err()
			}
			return qs, nil
		},
	}
	c.running = true
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	for i := range 40 {
		wg.Go(func() {
			if _, err := c.query(ctx, -1-i); !errors.Is(err, context.Canceled) {
				t.Errorf("call %d: %v", i, err)
			}
		})
	}
	waitQueued(c, 40)
	c.next()
	<-started
	cancel()
	wg.Wait()
	done := make(chan int)
	go func() {
		n, err := c.query(context.Background(), 7)
		if err != nil {
			t.Error(err)
		}
		done <- n
	}()
	if n := <-done; n != 7 || !stopped.Load() {
		t.Errorf("next call got %d; the abandoned batch stopped: %v", n, stopped.Load())
	}
}

// A queue is answered in batches of at most maxBatchQueries calls and
// maxBatchCost of text, each call once.
func TestCoalescedBatchesAreBounded(t *testing.T) {
	var mu sync.Mutex
	var sizes, costs []int
	c := &coalescer[string, string]{
		solo: func(ctx context.Context, q string) (string, error) { return q, nil },
		batch: func(ctx context.Context, qs []string) ([]string, error) {
			cost := 0
			for _, q := range qs {
				cost += len(q)
			}
			mu.Lock()
			sizes, costs = append(sizes, len(qs)), append(costs, cost)
			mu.Unlock()
			return qs, nil
		},
		cost: func(q string) int { return len(q) },
	}
	c.running = true
	var wg sync.WaitGroup
	const calls = 300
	for i := range calls {
		q := fmt.Sprintf("%d:%s", i, strings.Repeat("x", (i%5)*1000)) // up to 4 KB each
		wg.Go(func() {
			if got, err := c.query(context.Background(), q); err != nil || got != q {
				t.Errorf("call %d: %q, %v", i, got, err)
			}
		})
	}
	waitQueued(c, calls)
	c.next()
	wg.Wait()
	total := 0
	for i, n := range sizes {
		total += n
		if n > maxBatchQueries || costs[i] > maxBatchCost {
			t.Errorf("batch %d: %d calls, %d bytes; the bounds are %d and %d", i, n, costs[i], maxBatchQueries, maxBatchCost)
		}
	}
	if total != calls || len(sizes) < 2 {
		t.Errorf("%d batches answered %d calls, want %d calls in several", len(sizes), total, calls)
	}
}

// A heavy query runs alone, outside the batches: small calls are answered
// while it runs, and a second heavy one waits for it, or leaves.
func TestHeavyQueriesDoNotHoldSmallOnes(t *testing.T) {
	release := make(chan struct{})
	heavyRunning := make(chan struct{})
	c := &coalescer[string, string]{
		solo: func(ctx context.Context, q string) (string, error) {
			if len(q) > heavyCost {
				close(heavyRunning)
				<-release
			}
			return q[:1], nil
		},
		batch: func(ctx context.Context, qs []string) ([]string, error) {
			out := make([]string, len(qs))
			for i, q := range qs {
				out[i] = q[:1]
			}
			return out, nil
		},
		cost:  func(q string) int { return len(q) },
		heavy: make(chan struct{}, 1),
	}
	huge := strings.Repeat("h", heavyCost+1)
	heavyDone := make(chan error, 1)
	go func() { _, err := c.query(context.Background(), huge); heavyDone <- err }()
	<-heavyRunning
	for i := range 20 {
		if got, err := c.query(context.Background(), "small"); err != nil || got != "s" {
			t.Fatalf("small call %d behind a heavy one: %q, %v", i, got, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.query(ctx, huge); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a second heavy call while one runs: %v, want to wait and leave at its deadline", err)
	}
	close(release)
	if err := <-heavyDone; err != nil {
		t.Error(err)
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

// Concurrent QueryDocuments calls are batched too, each answered as alone.
func TestCoalescedDocumentQueriesAnswerAsAlone(t *testing.T) {
	ctx := context.Background()
	d, err := core.NewLocalDocumentIndex(core.LocalDocumentIndexConfig{
		FolderPath: "docs", Embeddings: testkit.Words{Dims: 16}, Tokenizer: testkit.Chars{},
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
	c := documentCoalescer(d, nil)
	var batches atomic.Int64
	c.observe = func(int, int) { batches.Add(1) }
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
