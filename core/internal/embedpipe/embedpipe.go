// Package embedpipe embeds the chunks of many documents with the work
// shared: chunks of several documents go into one embeddings request, up to
// the model's token limit, and several requests are in flight at once. It
// knows nothing of indexes: the caller splits the documents and commits
// them as they become ready.
package embedpipe

import (
	"context"
	"strings"
	"sync"
)

// Budget packs a stream of embeddings inputs into calls of at most Limit
// tokens in all; an input over the limit goes alone, for the model to
// judge. A limit of 0 or less puts everything in one call. It is the one
// rule of how embeddings calls are batched: by Run (chunks whose tokens are
// known), by query batches and by the gRPC server.
type Budget struct {
	Limit, used, inputs int
}

// StartsNew reports whether an input of n tokens must start a new call:
// the current one holds inputs and n more tokens would pass the limit.
func (b *Budget) StartsNew(n int) bool {
	return b.inputs > 0 && b.Limit > 0 && b.used+n > b.Limit
}

// Add counts an input of n tokens into the current call.
func (b *Budget) Add(n int) { b.used, b.inputs = b.used+n, b.inputs+1 }

// Reset starts a new call.
func (b *Budget) Reset() { b.used, b.inputs = 0, 0 }

// Batches cuts n inputs into runs [from, to) of consecutive inputs whose
// token counts (tokens(i)) add up to at most limit; an input over the limit
// is a run of its own. With a limit of 0 or less all inputs are one run
// (tokens is not called); no inputs, no run.
func Batches(n, limit int, tokens func(i int) int) [][2]int {
	if n == 0 {
		return nil
	}
	if limit <= 0 {
		return [][2]int{{0, n}}
	}
	var out [][2]int
	b := Budget{Limit: limit}
	from := 0
	for i := range n {
		t := tokens(i)
		if b.StartsNew(t) {
			out = append(out, [2]int{from, i})
			from = i
			b.Reset()
		}
		b.Add(t)
	}
	return append(out, [2]int{from, n})
}

// Doc is a split document: its chunks' texts and token counts.
type Doc struct {
	Texts  []string
	Tokens []int
}

// Config is what Run needs.
type Config struct {
	// Concurrency is the most requests in flight (at least 1).
	Concurrency int
	// MaxTokens is the most tokens one request holds (see Budget).
	MaxTokens int
	// Split splits document i; it is called in the order of Run's todo,
	// from one goroutine.
	Split func(ctx context.Context, i int) (Doc, error)
	// Embed embeds inputs, one vector each, in order.
	Embed func(ctx context.Context, inputs []string) ([][]float32, error)
}

// Event is what Run reports: a request that finished (Call, with the
// number of Chunks it embedded), a document whose chunks are all embedded
// (Doc ≥ 0, with its Vectors in order), or the error that stops the run.
type Event struct {
	Call    bool
	Chunks  int
	Doc     int
	Vectors [][]float32
	Err     error
}

type ref struct{ doc, chunk int }

type request struct {
	refs   []ref
	inputs []string
}

type doc struct {
	vectors   [][]float32
	remaining int
}

// Run splits and embeds the documents todo and reports on the returned
// channel, which it closes once every request has finished or ctx has
// ended. A split or embeddings error is reported once and stops the
// producer or the worker that met it; the caller cancels ctx to stop the
// rest. Line breaks in chunk texts are sent as spaces, as Vectra sends
// them.
func Run(ctx context.Context, cfg Config, todo []int) <-chan Event {
	requests := make(chan request, cfg.Concurrency)
	events := make(chan Event, 2*cfg.Concurrency)
	var mu sync.Mutex // guards docs
	docs := map[int]*doc{}
	var wg sync.WaitGroup
	send := func(e Event) bool {
		select {
		case events <- e:
			return true
		case <-ctx.Done():
			return false
		}
	}
	wg.Go(func() { // the producer
		defer close(requests)
		var pending request
		budget := Budget{Limit: cfg.MaxTokens}
		flush := func() bool {
			if len(pending.refs) == 0 {
				return true
			}
			select {
			case requests <- pending:
			case <-ctx.Done():
				return false
			}
			pending = request{}
			budget.Reset()
			return true
		}
		for _, i := range todo {
			d, err := cfg.Split(ctx, i)
			if err != nil {
				send(Event{Doc: -1, Err: err})
				return
			}
			if len(d.Texts) == 0 {
				if !send(Event{Doc: i}) {
					return
				}
				continue
			}
			mu.Lock()
			docs[i] = &doc{vectors: make([][]float32, len(d.Texts)), remaining: len(d.Texts)}
			mu.Unlock()
			for j, text := range d.Texts {
				if budget.StartsNew(d.Tokens[j]) && !flush() {
					return
				}
				pending.refs = append(pending.refs, ref{doc: i, chunk: j})
				pending.inputs = append(pending.inputs, strings.ReplaceAll(text, "\n", " "))
				budget.Add(d.Tokens[j])
			}
		}
		flush()
	})
	for range cfg.Concurrency { // the workers
		wg.Go(func() {
			for req := range requests {
				vectors, err := cfg.Embed(ctx, req.inputs)
				if err != nil {
					send(Event{Doc: -1, Err: err})
					return
				}
				var ready []Event
				mu.Lock()
				for k, r := range req.refs {
					d := docs[r.doc]
					d.vectors[r.chunk] = vectors[k]
					if d.remaining--; d.remaining == 0 {
						ready = append(ready, Event{Doc: r.doc, Vectors: d.vectors})
						delete(docs, r.doc)
					}
				}
				mu.Unlock()
				if !send(Event{Call: true, Chunks: len(req.inputs), Doc: -1}) {
					return
				}
				for _, e := range ready {
					if !send(e) {
						return
					}
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(events)
	}()
	return events
}
