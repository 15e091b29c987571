package grpcserver

import (
	"context"
	"sync"

	"github.com/foliovec/folio/core"
)

// coalescer answers concurrent queries on one index together, through the
// engine's batched query (core.LocalDocumentIndex.QueryDocumentsBatch, which
// embeds the batch's texts in one call and reads the vectors once for the
// whole batch). QueryItems calls need none: the engine's Query shares its
// passes over the vectors with the concurrent calls itself. A call that finds the index idle is answered at
// once, alone, so a call arriving by itself waits for nothing; calls that
// arrive while a scan runs queue, and the next batch takes them all when
// the scan ends. Each answer is what the call would get alone: the
// engine's batched queries return, per query, exactly the single query's
// results.
//
// It is safe for concurrent use.
type coalescer[Q, R any] struct {
	// solo answers one query; batch answers several, result i for query i.
	solo  func(ctx context.Context, q Q) (R, error)
	batch func(ctx context.Context, qs []Q) ([]R, error)
	// observe, when set (tests), is told the size of every batch.
	observe func(n int)

	mu      sync.Mutex
	running bool
	pending []*coalescedCall[Q, R]
}

// coalescedCall is one queued query and, once done is closed, its answer.
type coalescedCall[Q, R any] struct {
	q    Q
	res  R
	err  error
	done chan struct{}
}

// documentCoalescer batches d's QueryDocuments calls.
func documentCoalescer(d *core.LocalDocumentIndex) *coalescer[core.DocumentQuery, []*core.LocalDocumentResult] {
	return &coalescer[core.DocumentQuery, []*core.LocalDocumentResult]{
		solo: func(ctx context.Context, q core.DocumentQuery) ([]*core.LocalDocumentResult, error) {
			return d.QueryDocuments(ctx, q.Query, &q.Options)
		},
		batch: d.QueryDocumentsBatch,
	}
}

// query answers q, batched with the calls that arrive meanwhile. A call
// whose ctx ends while queued returns ctx's error; the batch it was in
// still runs for the others.
func (c *coalescer[Q, R]) query(ctx context.Context, q Q) (R, error) {
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
		var zero R
		return zero, ctx.Err()
	}
}

// next runs the queued calls, if any, as one batch, in a goroutine of its
// own so that the caller, whose answer is ready, returns at once; the
// batch's goroutine then runs the calls queued during it, and so on until
// none are left.
func (c *coalescer[Q, R]) next() {
	c.mu.Lock()
	batch := c.pending
	c.pending = nil
	if len(batch) == 0 {
		c.running = false
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	if c.observe != nil {
		c.observe(len(batch))
	}
	go func() {
		c.answer(batch)
		c.next()
	}()
}

// answer runs a batch. Its context is not any one caller's: a caller that
// gives up does not fail the others. A batch that fails as a whole (one
// invalid query fails a batched query) is answered call by call, so each
// gets its own error.
func (c *coalescer[Q, R]) answer(batch []*coalescedCall[Q, R]) {
	ctx := context.Background()
	queries := make([]Q, len(batch))
	for i, call := range batch {
		queries[i] = call.q
	}
	results, err := c.batch(ctx, queries)
	for i, call := range batch {
		if err == nil {
			call.res = results[i]
		} else {
			call.res, call.err = c.solo(ctx, call.q)
		}
		close(call.done)
	}
}
