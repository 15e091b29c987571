// Package par runs a bounded number of calls at once.
package par

import (
	"context"
	"errors"
	"sync"
)

// Each runs fn for 0..n-1, at most limit calls at once, and waits for
// them. The first failure cancels the context the others get; Each then
// returns it, rather than the context.Canceled of a call it cancelled. A ctx
// that ends first makes the calls not yet started fail with its error.
func Each(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			if errs[i] = fn(ctx, i); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
