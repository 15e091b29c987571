package grpcserver

import (
	"context"
	"slices"
	"sync"

	"github.com/foliovec/folio/core"
)

// coalescer answers concurrent queries on one index together, through the
// engine's batched query (core.LocalDocumentIndex.QueryDocumentsBatch, which
// embeds the batch's texts in one call and reads the vectors once for the
// whole batch). QueryItems calls need none: the engine's Query shares its
// passes over the vectors with the concurrent calls itself. A call that
// finds the index idle is answered at once, alone, so a call arriving by
// itself waits for nothing; calls that arrive while a scan runs queue, and
// the next batch takes them when the scan ends. Each answer is what the
// call would get alone: the engine's batched queries return, per query,
// exactly the single query's results.
//
// The work one caller can cause is bounded:
//
//   - A batch holds at most maxBatchQueries calls and maxBatchCost of query
//     text, so a queue is answered in several batches rather than one
//     huge one.
//   - A query costing more than heavyCost (a long text) never joins a
//     batch: it runs alone, one such query at a time per index, so short
//     queries are not held behind it.
//   - A caller that leaves (its ctx cancelled or past its deadline) leaves
//     the queue, and its query is not run; a batch whose callers have all
//     left is cancelled.
//
// It is safe for concurrent use.
type coalescer[Q, R any] struct {
	// solo answers one query; batch answers several, result i for query i.
	solo  func(ctx context.Context, q Q) (R, error)
	batch func(ctx context.Context, qs []Q) ([]R, error)
	// cost is a query's cost, in bytes of text; nil means 1 for each.
	cost func(q Q) int
	// observe, when set, is told the size of every batch and how many
	// calls wait behind it.
	observe func(n, waiting int)

	heavy chan struct{} // held by the heavy query running; nil until first used

	mu      sync.Mutex
	running bool
	pending []*coalescedCall[Q, R]
}

// The bounds of a batch and of a query that may join one (see coalescer).
const (
	maxBatchQueries = 64
	maxBatchCost    = 64 << 10
	heavyCost       = 4 << 10
)

// coalescedCall is one queued query and, once done is closed, its answer.
type coalescedCall[Q, R any] struct {
	q    Q
	res  R
	err  error
	done chan struct{}
	// Guarded by the coalescer's mu:
	run  *batchRun // the batch that took it; nil while queued
	left bool      // the caller gave up
}

// batchRun is a running batch: its context is cancelled once every caller
// in it has left.
type batchRun struct {
	cancel  context.CancelFunc
	waiting int // callers still waiting for their answer
}

// documentCoalescer batches d's QueryDocuments calls.
func documentCoalescer(d *core.LocalDocumentIndex, observe func(n, waiting int)) *coalescer[core.DocumentQuery, []*core.LocalDocumentResult] {
	return &coalescer[core.DocumentQuery, []*core.LocalDocumentResult]{
		observe: observe,
		solo: func(ctx context.Context, q core.DocumentQuery) ([]*core.LocalDocumentResult, error) {
			return d.QueryDocuments(ctx, q.Query, &q.Options)
		},
		batch: d.QueryDocumentsBatch,
		cost:  func(q core.DocumentQuery) int { return len(q.Query) },
		heavy: make(chan struct{}, 1),
	}
}

func (c *coalescer[Q, R]) costOf(q Q) int {
	if c.cost == nil {
		return 1
	}
	return c.cost(q)
}

// query answers q, batched with the calls that arrive meanwhile, or alone
// when q is heavy. A call whose ctx ends first returns ctx's error, and
// its query is not run (or, in a batch whose callers all left, stopped).
func (c *coalescer[Q, R]) query(ctx context.Context, q Q) (R, error) {
	if c.heavy != nil && c.costOf(q) > heavyCost {
		return c.heavyQuery(ctx, q)
	}
	call := &coalescedCall[Q, R]{q: q, done: make(chan struct{})}
	c.mu.Lock()
	if !c.running {
		// The index is idle: answer this call now, alone, and then any
		// that queued meanwhile.
		c.running = true
		c.mu.Unlock()
		call.res, call.err = c.solo(ctx, q)
		c.next()
		return call.res, call.err
	}
	c.pending = append(c.pending, call)
	c.mu.Unlock()
	select {
	case <-call.done:
		return call.res, call.err
	case <-ctx.Done():
		c.leave(call)
		var zero R
		return zero, ctx.Err()
	}
}

// heavyQuery answers a heavy query alone, once no other heavy query of
// this index runs.
func (c *coalescer[Q, R]) heavyQuery(ctx context.Context, q Q) (R, error) {
	select {
	case c.heavy <- struct{}{}:
	case <-ctx.Done():
		var zero R
		return zero, ctx.Err()
	}
	defer func() { <-c.heavy }()
	if err := ctx.Err(); err != nil { // both were ready, and select chose the slot
		var zero R
		return zero, err
	}
	return c.solo(ctx, q)
}

// leave takes a caller that gave up out of the queue, or out of its
// batch's count of waiting callers, cancelling the batch when it was the
// last.
func (c *coalescer[Q, R]) leave(call *coalescedCall[Q, R]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	call.left = true
	if call.run == nil {
		if i := slices.Index(c.pending, call); i >= 0 {
			c.pending = slices.Delete(c.pending, i, i+1)
		}
		return
	}
	call.run.waiting--
	if call.run.waiting == 0 {
		call.run.cancel()
	}
}

// next runs the first queued calls, if any, as one batch (within the
// bounds), in a goroutine of its own so that the caller, whose answer is
// ready, returns at once; the batch's goroutine then runs the next batch,
// and so on until none are left.
func (c *coalescer[Q, R]) next() {
	c.mu.Lock()
	n, cost := 0, 0
	for n < len(c.pending) && n < maxBatchQueries {
		qc := c.costOf(c.pending[n].q)
		if n > 0 && cost+qc > maxBatchCost {
			break
		}
		cost += qc
		n++
	}
	if n == 0 {
		c.running = false
		c.mu.Unlock()
		return
	}
	batch := c.pending[:n:n]
	c.pending = slices.Clone(c.pending[n:])
	waiting := len(c.pending)
	ctx, cancel := context.WithCancel(context.Background())
	run := &batchRun{cancel: cancel, waiting: n}
	for _, call := range batch {
		call.run = run
	}
	c.mu.Unlock()
	if c.observe != nil {
		c.observe(n, waiting)
	}
	go func() {
		defer cancel()
		c.answer(ctx, batch)
		c.next()
	}()
}

// answer runs a batch. Its context is not any one caller's: a caller that
// gives up does not fail the others; it is cancelled when all have. A
// batch that fails as a whole (one invalid query fails a batched query) is
// answered call by call, so each gets its own error.
func (c *coalescer[Q, R]) answer(ctx context.Context, batch []*coalescedCall[Q, R]) {
	queries := make([]Q, len(batch))
	for i, call := range batch {
		queries[i] = call.q
	}
	results, err := c.batch(ctx, queries)
	for i, call := range batch {
		switch {
		case err == nil:
			call.res = results[i]
		case ctx.Err() != nil || c.hasLeft(call):
			call.err = context.Canceled // nobody is waiting for it
		default:
			call.res, call.err = c.solo(ctx, call.q)
		}
		close(call.done)
	}
}

func (c *coalescer[Q, R]) hasLeft(call *coalescedCall[Q, R]) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return call.left
}
