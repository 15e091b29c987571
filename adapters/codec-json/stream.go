package codecjson

import (
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/foliovec/folio/core"
)

var _ core.IndexStreamEncoder = (*JsonCodec)(nil)

// streamBlock is how many items EncodeIndexTo encodes as one piece.
const streamBlock = 256

// EncodeIndexTo writes to w the bytes SerializeIndex returns for the index
// src describes (core.IndexStreamEncoder). Blocks of items are encoded by
// up to GOMAXPROCS goroutines, at most two blocks each ahead of the
// writer, and written in item order, so it holds a few blocks' bytes
// whatever the index's size. It fails where SerializeIndex fails, naming
// the first failing item in item order, possibly after writing the items
// before it.
func (*JsonCodec) EncodeIndexTo(w io.Writer, src core.IndexSource) error {
	if _, err := w.Write(appendIndexHead(nil, core.IndexData{Version: src.Version, MetadataConfig: src.MetadataConfig})); err != nil {
		return err
	}
	type piece struct {
		b   []byte
		err error
	}
	type job struct {
		lo  int
		out chan piece
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), (src.Len+streamBlock-1)/streamBlock))
	jobs := make(chan job)
	order := make(chan chan piece, 2*workers) // each block's result, in item order
	done := make(chan struct{})               // closed when the writer stops early
	free := make(chan []byte, 3*workers)      // written blocks' buffers, for reuse
	var wg sync.WaitGroup
	wg.Go(func() { // hands the blocks out in item order
		defer close(jobs)
		defer close(order)
		for lo := 0; lo < src.Len; lo += streamBlock {
			out := make(chan piece, 1)
			select {
			case order <- out:
			case <-done:
				return
			}
			select {
			case jobs <- job{lo, out}:
			case <-done:
				return
			}
		}
	})
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				var b []byte
				select {
				case b = <-free:
				default:
				}
				b, err := appendBlock(b[:0], src, j.lo, min(j.lo+streamBlock, src.Len))
				j.out <- piece{b, err}
			}
		})
	}
	err := func() error {
		for out := range order {
			p := <-out
			if p.err != nil {
				return fmt.Errorf("codecjson: encode index: %w", p.err)
			}
			if _, err := w.Write(p.b); err != nil {
				return err
			}
			select {
			case free <- p.b:
			default:
			}
		}
		_, err := io.WriteString(w, "]}")
		return err
	}()
	close(done)
	wg.Wait()
	return err
}

// appendBlock appends items lo…hi-1 of src, each preceded by a comma but
// the first of the index.
func appendBlock(b []byte, src core.IndexSource, lo, hi int) ([]byte, error) {
	for i := lo; i < hi; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		it := src.Item(i)
		var err error
		if b, err = appendItem(b, &it); err != nil {
			return nil, fmt.Errorf("items[%d]: %w", i, err)
		}
	}
	return b, nil
}
