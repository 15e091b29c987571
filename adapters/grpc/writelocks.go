package grpcserver

import (
	"context"
	"sync"

	"github.com/foliovec/folio/core"
)

// writeLocks serialises the mutating calls on each index, so concurrent
// clients wait their turn instead of failing (Vectra answers INTERNAL
// "Update already in progress"). The lock gives up when the call's context
// ends.
type writeLocks struct {
	m sync.Map // *core.LocalIndex → chan struct{} (capacity 1)
}

func (w *writeLocks) lock(ctx context.Context, ix *core.LocalIndex) (unlock func(), err error) {
	v, _ := w.m.LoadOrStore(ix, make(chan struct{}, 1))
	ch := v.(chan struct{})
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// forget drops the lock of a deleted index.
func (w *writeLocks) forget(ix *core.LocalIndex) { w.m.Delete(ix) }
