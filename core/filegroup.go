package core

import (
	"context"
	"errors"
	"sync"
)

// maxFileWrites bounds the UpsertFile calls a group write makes at once on
// storage without GroupWriter (durable storage syncs each file: overlapping
// them saves most of the wait).
const maxFileWrites = 16

// writeGroup writes files through st's GroupWriter, or, without one, with
// up to maxFileWrites UpsertFile calls at once. When it returns nil every
// file is stored. On error any subset may have been written.
func writeGroup(ctx context.Context, st FileStorage, files []FileWrite) error {
	if len(files) == 0 {
		return nil
	}
	if gw, ok := st.(GroupWriter); ok {
		return gw.WriteFiles(ctx, files)
	}
	errs := make([]error, len(files))
	sem := make(chan struct{}, maxFileWrites)
	var wg sync.WaitGroup
	for i, f := range files {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = st.UpsertFile(ctx, f.Path, f.Content)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
