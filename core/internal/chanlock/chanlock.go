// Package chanlock is a mutex whose Lock can give up when a context ends.
package chanlock

import "context"

// Mutex is the index's writer lock: a mutex whose lock gives up when a
// context ends, so a call waiting behind a slow writer or a slow first load
// returns at its deadline instead of waiting without bound.
type Mutex struct{ ch chan struct{} }

func New() Mutex { return Mutex{ch: make(chan struct{}, 1)} }

// LockContext takes the lock, or returns ctx's error if ctx ends first.
func (l Mutex) LockContext(ctx context.Context) error {
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

// TryLock takes the lock if it is free, and reports whether it did.
func (l Mutex) TryLock() bool {
	select {
	case l.ch <- struct{}{}:
		return true
	default:
		return false
	}
}

// Lock takes the lock, waiting as long as it takes.
func (l Mutex) Lock() { l.ch <- struct{}{} }

// Unlock releases the lock.
func (l Mutex) Unlock() { <-l.ch }
