package grpcserver

import (
	"context"
	"sync"

	"github.com/foliovec/folio/core"
)

// coalescer answers concurrent QueryItems calls on one index together,
// through the engine's batched query (core.LocalIndex.QueryItemsBatch),
// which reads the vectors once for the whole batch. A call that finds the
// index idle is answered at once, alone, so a call arriving by itself waits
// for nothing; calls that arrive while a scan runs queue, and the next
// batch takes them all when the scan ends. Each answer is what the call
// would get alone: the engine's batched query returns, per query, exactly
// QueryItems' results.
//
// It is safe for concurrent use.
type coalescer struct {
	mu      sync.Mutex
	running bool
	pending []*coalescedCall
	// observe, when set (tests), is told the size of every batch.
	observe func(n int)
}

// coalescedCall is one queued query and, once done is closed, its answer.
type coalescedCall struct {
	q    core.ItemQuery
	res  []core.QueryResult
	err  error
	done chan struct{}
}

// query answers q on ix, batched with the calls that arrive meanwhile. A
// call whose ctx ends while queued returns ctx's error; the batch it was in
// still runs for the others.
func (c *coalescer) query(ctx context.Context, ix *core.LocalIndex, q core.ItemQuery) ([]core.QueryResult, error) {
	call := &coalescedCall{q: q, done: make(chan struct{})}
	c.mu.Lock()
	if !c.running {
		// The index is idle: answer this call now, alone, and then any
		// that queued meanwhile.
		c.running = true
		c.mu.Unlock()
		call.res, call.err = ix.QueryItems(ctx, q.Vector, q.Query, q.TopK, q.Filter, q.IsBm25)
		c.next(ix)
		return call.res, call.err
	}
	c.pending = append(c.pending, call)
	c.mu.Unlock()
	select {
	case <-call.done:
		return call.res, call.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// next runs the queued calls, if any, as one batch, in a goroutine of its
// own so that the caller, whose answer is ready, returns at once; the
// batch's goroutine then runs the calls queued during it, and so on until
// none are left.
func (c *coalescer) next(ix *core.LocalIndex) {
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
		answer(ix, batch)
		c.next(ix)
	}()
}

// answer runs a batch. Its context is not any one caller's: a caller that
// gives up does not fail the others. A batch that fails as a whole (one
// invalid query fails QueryItemsBatch) is answered call by call, so each
// gets its own error.
func answer(ix *core.LocalIndex, batch []*coalescedCall) {
	ctx := context.Background()
	queries := make([]core.ItemQuery, len(batch))
	for i, call := range batch {
		queries[i] = call.q
	}
	results, err := ix.QueryItemsBatch(ctx, queries)
	for i, call := range batch {
		if err == nil {
			call.res = results[i]
		} else {
			call.res, call.err = ix.Query(ctx, call.q)
		}
		close(call.done)
	}
}
