package core

import (
	"context"
	"errors"
	"testing"
	"time"
)

// blockingReadStorage blocks every ReadFile of one path, whatever its
// context, until release is closed: a storage stuck in a read.
type blockingReadStorage struct {
	*memTestStorage
	path    string
	release chan struct{}
	entered chan struct{}
}

func (b *blockingReadStorage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if p == b.path {
		b.entered <- struct{}{}
		<-b.release
	}
	return b.memTestStorage.ReadFile(ctx, p)
}

// A call waiting for the writer lock behind a load that never returns gives
// up at its context's deadline, readers and writers alike.
func TestCallsWaitingForAStuckLoadHonourTheirContext(t *testing.T) {
	ctx := context.Background()
	_, st := newCreatedIndex(t, CreateIndexConfig{})
	bs := &blockingReadStorage{memTestStorage: st, path: idxTestFolder + "/index.json", release: make(chan struct{}), entered: make(chan struct{}, 1)}
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: bs, Codec: jsonTestCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	stuck := make(chan error, 1)
	go func() { _, err := ix.GetIndexStats(ctx); stuck <- err }()
	<-bs.entered
	for name, call := range map[string]func(context.Context) error{
		"GetIndexStats": func(ctx context.Context) error { _, err := ix.GetIndexStats(ctx); return err },
		"QueryItems": func(ctx context.Context) error {
			_, err := ix.QueryItems(ctx, []float32{1}, "", 1, nil, false)
			return err
		},
		"InsertItem": func(ctx context.Context) error {
			_, err := ix.InsertItem(ctx, IndexItem{Vector: []float32{1}})
			return err
		},
		"BeginUpdate": func(ctx context.Context) error { return ix.BeginUpdate(ctx) },
	} {
		dctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		done := make(chan error, 1)
		go func() { done <- call(dctx) }()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: %v, want context.DeadlineExceeded", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not return at its deadline", name)
		}
		cancel()
	}
	close(bs.release)
	if err := <-stuck; err != nil {
		t.Fatalf("the stuck load, released: %v", err)
	}
}
