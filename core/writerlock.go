package core

import "context"

// writerLock is the index's writer lock: a mutex whose lock gives up when a
// context ends, so a call waiting behind a slow writer or a slow first load
// returns at its deadline instead of waiting without bound.
type writerLock struct{ ch chan struct{} }

func newWriterLock() writerLock { return writerLock{ch: make(chan struct{}, 1)} }

// lock takes the lock, or returns ctx's error if ctx ends first.
func (l writerLock) lock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case l.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// tryLock takes the lock if it is free, and reports whether it did.
func (l writerLock) tryLock() bool {
	select {
	case l.ch <- struct{}{}:
		return true
	default:
		return false
	}
}

// Lock takes the lock, waiting as long as it takes.
func (l writerLock) Lock() { l.ch <- struct{}{} }

// Unlock releases the lock.
func (l writerLock) Unlock() { <-l.ch }
