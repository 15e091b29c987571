package scan

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/foliovec/folio/core/internal/topk"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// Shared answers concurrent unfiltered exact queries over the same rows
// with shared passes. A pass cuts the rows into chunks and hands them out
// one after another, round and round, to a few workers; each chunk is
// scored for every query in the pass at the time (as Batch scores rows),
// so concurrent queries cost about one read of the rows between them
// instead of one each. A query arriving while a pass runs joins it at the
// next chunk handed out, is scored on every chunk once, wrapping round to
// those it missed, and leaves: it never waits for a pass to end, nor for
// the workers to finish a chunk together.
//
// A query alone is a pass of its own, its answer the same as TopK's;
// every answer is what TopK returns for that query, whatever it shared
// (each worker keeps, per query, the k best of the rows it scored in
// ascending row order, and the union of those holds the k best overall).
//
// The zero value is ready to use, and it is safe for concurrent use. The
// goroutine of a query works on its pass until its own answer is ready;
// when it stops, a goroutine of its own takes its place if the pass still
// has queries to hand chunks to, and ends with the pass.
type Shared struct {
	mu   sync.Mutex
	pass *pass // the pass running, nil when none

	extended atomic.Int64 // queries that joined a pass over fewer rows than theirs (tests)
}

// The chunks of a pass: at least minChunkRows rows each (a chunk costs a
// lock and a hand-out), at most maxChunks of them (a query that joins
// waits at most for the chunks being scored).
const (
	minChunkRows = 2048
	maxChunks    = 256
)

// pass is one shared pass over the first n rows of rows. Its fields are
// guarded by Shared.mu.
type pass struct {
	rows   *Rows
	n      int
	size   int // rows per chunk, the last one shorter
	chunks int
	next   int       // the next chunk to hand out
	active []*member // the queries still to be handed chunks

	want  int    // workers worth running: GOMAXPROCS at most, one per chunk
	slots []bool // the worker slots in use
	busy  int    // workers running
}

// member is one query of a pass.
type member struct {
	scan  batchQuery
	first int // the chunk it joined at
	toGo  int // chunks still to hand it (guarded by Shared.mu)
	// heaps holds, per worker slot, the k best of the chunks from first
	// on (2w) and of those before first (2w+1): each is offered rows in
	// ascending order, as ties need. A slot's heaps are touched only by
	// the worker holding it.
	heaps []*topk.Heap
	left  atomic.Int64 // chunks still to score
	gone  atomic.Bool  // its caller stopped waiting
	res   []topk.Scored
	done  chan struct{}
}

// TopK returns the k best of the first n rows for q, best first, as TopK
// with every row selected does. q must be non-zero and of the rows' common
// length, and the rows not Mixed. It returns ctx's error if ctx ends before
// the answer is ready; the pass goes on for the others.
func (s *Shared) TopK(ctx context.Context, rows *Rows, n int, q []float32, k int) ([]topk.Scored, error) {
	k = min(k, n)
	if n == 0 || k <= 0 {
		return nil, nil
	}
	s.mu.Lock()
	p := s.pass
	switch {
	case p == nil:
		p = newPass(rows, n)
		s.pass = p
	case p.rows != rows && (rows.Gen == nil || p.rows.Gen != rows.Gen || n < p.n || n-p.n > max(p.size, p.n/8)):
		// The pass reads another state of the index (a commit that
		// rebuilt the rows came in between, or appended more than this
		// query had better score alone): this query reads its own state
		// alone, and the pass drains.
		s.mu.Unlock()
		res, err := Batch(ctx, rows, n, [][]float32{q}, []int{k})
		if err != nil {
			return nil, err
		}
		return res[0], nil
	}
	// The pass reads these rows, or the first p.n of them: a commit that
	// appended a few rows (the same Gen) came in between. The query joins
	// the pass and scores the rows after those itself.
	m := p.join(q, min(k, p.n))
	slot := p.take()
	for p.busy < p.want {
		go s.work(context.Background(), p, p.take(), nil)
	}
	s.mu.Unlock()
	var extra []topk.Scored
	if p.n < n {
		s.extended.Add(1)
		res, err := batchRange(ctx, rows, p.n, n, [][]float32{q}, []int{k})
		if err != nil {
			m.gone.Store(true)
			if slot >= 0 {
				s.mu.Lock()
				s.release(p, slot)
				s.mu.Unlock()
			}
			return nil, err
		}
		extra = res[0]
	}
	if slot >= 0 {
		s.work(ctx, p, slot, m)
	}
	select {
	case <-m.done:
		if extra == nil {
			return m.res, nil
		}
		return topk.Best(k, m.res, extra), nil
	case <-ctx.Done():
		m.gone.Store(true)
		return nil, ctx.Err()
	}
}

// newPass is a pass over the first n rows of rows, with no query yet.
func newPass(rows *Rows, n int) *pass {
	size := max(minChunkRows, (n+maxChunks-1)/maxChunks)
	chunks := (n + size - 1) / size
	want := max(1, min(runtime.GOMAXPROCS(0), chunks))
	return &pass{rows: rows, n: n, size: size, chunks: chunks, want: want, slots: make([]bool, want)}
}

// join adds a query of q for its k best to p, from the next chunk.
func (p *pass) join(q []float32, k int) *member {
	m := &member{
		scan:  batchQuery{q: q, qnorm: vecmath.Length(q), k: k},
		first: p.next,
		toGo:  p.chunks,
		heaps: make([]*topk.Heap, 2*p.want),
		done:  make(chan struct{}),
	}
	m.left.Store(int64(p.chunks))
	p.active = append(p.active, m)
	return m
}

// take returns a free worker slot of p, taken, or -1 when p runs all the
// workers it wants.
func (p *pass) take() int {
	if p.busy == p.want {
		return -1
	}
	w := slices.Index(p.slots, false)
	p.slots[w] = true
	p.busy++
	return w
}

// work scores chunks of p as worker slot w until no query is left to hand
// one to or, for own's caller (own nil on a goroutine of its own), until
// own is answered or ctx ends; then it releases the slot.
func (s *Shared) work(ctx context.Context, p *pass, w int, own *member) {
	var batch []*member
	var scans []batchQuery
	var heaps []*topk.Heap
	for {
		s.mu.Lock()
		if own != nil && ctx.Err() != nil {
			own.gone.Store(true)
		}
		p.active = slices.DeleteFunc(p.active, func(m *member) bool { return m.gone.Load() })
		if len(p.active) == 0 || own != nil && (own.gone.Load() || isDone(own.done)) {
			s.release(p, w)
			s.mu.Unlock()
			return
		}
		c := p.next
		p.next = (p.next + 1) % p.chunks
		batch = append(batch[:0], p.active...)
		for _, m := range batch {
			m.toGo--
		}
		p.active = slices.DeleteFunc(p.active, func(m *member) bool { return m.toGo == 0 })
		s.mu.Unlock()

		scans, heaps = scans[:0], heaps[:0]
		for _, m := range batch {
			h := 2 * w
			if c < m.first {
				h++
			}
			if m.heaps[h] == nil {
				m.heaps[h] = topk.New(m.scan.k)
			}
			scans = append(scans, m.scan)
			heaps = append(heaps, m.heaps[h])
		}
		lo, hi := c*p.size, min((c+1)*p.size, p.n)
		blk := max(4, batchL1Bytes/(4*p.rows.Dim)&^3)
		if len(scans) == 1 {
			blk = block // nothing to share a block with: read it as TopK does
		}
		// A chunk is a millisecond or so: a caller that gives up leaves
		// at the next one.
		batchRun(context.Background(), p.rows, scans, heaps, lo, hi, blk)
		for _, m := range batch {
			if m.left.Add(-1) == 0 {
				// Every slot's heaps were last written before their
				// worker's decrement, which this one follows.
				m.res = topk.Merge(m.scan.k, slices.DeleteFunc(m.heaps, func(h *topk.Heap) bool { return h == nil })...)
				close(m.done)
			}
		}
		clear(batch)
		// Workers never block between chunks: let the goroutines waiting
		// for a thread (callers with queries to join, answers to send)
		// run now rather than at the scheduler's next preemption, 10 ms
		// away.
		runtime.Gosched()
	}
}

// release gives worker slot w of p up: to a goroutine of its own if the
// pass still has queries to hand chunks to, else ending the pass when it
// was the last worker. s.mu must be held.
func (s *Shared) release(p *pass, w int) {
	p.slots[w] = false
	p.busy--
	switch {
	case len(p.active) > 0:
		slot := p.take()
		go s.work(context.Background(), p, slot, nil)
	case p.busy == 0 && s.pass == p:
		s.pass = nil
	}
}

// isDone reports whether done is closed.
func isDone(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// running returns the pass running, nil when none (tests).
func (s *Shared) running() *pass {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pass
}
