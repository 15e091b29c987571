package par

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// Each runs every call, never more than limit at once, and returns the
// first real failure, not the cancellation it caused in the others.
func TestEach(t *testing.T) {
	var running, most, calls atomic.Int32
	err := Each(context.Background(), 50, 3, func(ctx context.Context, i int) error {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		calls.Add(1)
		return nil
	})
	if err != nil || calls.Load() != 50 || most.Load() > 3 {
		t.Fatalf("err %v, %d calls, at most %d at once", err, calls.Load(), most.Load())
	}
	boom := errors.New("boom")
	err = Each(context.Background(), 20, 20, func(ctx context.Context, i int) error {
		if i == 7 {
			return boom
		}
		<-ctx.Done() // the others wait until the failure cancels them
		return ctx.Err()
	})
	if err != boom {
		t.Fatalf("Each = %v, want the failure itself", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Each(ctx, 5, 1, func(ctx context.Context, i int) error { return ctx.Err() }); !errors.Is(err, context.Canceled) {
		t.Fatalf("Each with an ended context = %v", err)
	}
}
