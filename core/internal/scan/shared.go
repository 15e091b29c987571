package scan

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/foliovec/folio/core/internal/topk"
)

// Shared answers concurrent unfiltered exact queries over the same rows
// with shared passes: the rows are read segment by segment, and a query
// that arrives while a pass runs joins it at the next segment, scores every
// segment once, wrapping round to the segments it missed, and leaves. Each
// segment is read once for all the queries in the pass at the time (Batch),
// so concurrent queries cost about one read of the rows between them
// instead of one each, and a query never waits for a pass to end before its
// own starts: it waits at most for the segment in progress.
//
// A query alone is one pass of its own, its answer the same as TopK's;
// every answer is what TopK returns for that query, whatever it shared
// (each segment keeps its k best, ties to the lower row, and the union of
// those holds the k best overall).
//
// The zero value is ready to use, and it is safe for concurrent use. The
// goroutine of the query that starts a pass drives it until its own answer
// is ready, then hands the pass, if others are still in it, to a goroutine
// of its own that ends with the pass.
type Shared struct {
	mu     sync.Mutex
	pass   *pass     // the pass running, nil when none
	joined []*member // queries waiting for the next segment

	extended atomic.Int64 // queries that joined a pass over fewer rows than theirs (tests)
}

// MinSegmentRows is the fewest rows of a segment: a pass over fewer rows
// than two segments is one segment (the whole rows), and a query arriving
// during it waits for the next pass.
const MinSegmentRows = 8192

// maxSegments bounds the segments of a pass: more let a query join sooner,
// each costs a fork and join of the workers.
const maxSegments = 8

// pass is one shared pass over n rows: the queries in it and the next
// segment to score.
type pass struct {
	rows   *Rows
	n      int
	segs   int
	seg    int
	active []*member
}

// member is one query of a pass.
type member struct {
	q     []float32
	k     int
	left  int             // segments still to score
	parts [][]topk.Scored // the k best of each segment scored
	gone  atomic.Bool     // its caller stopped waiting
	res   []topk.Scored
	err   error
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
	m := &member{q: q, k: k, done: make(chan struct{})}
	s.mu.Lock()
	switch {
	case s.pass == nil:
		p := &pass{rows: rows, n: n, segs: segments(n)}
		s.pass = p
		s.joined = append(s.joined, m)
		s.mu.Unlock()
		s.drive(ctx, p, m)
		return m.res, m.err
	case s.pass.rows != rows && (rows.Gen == nil || s.pass.rows.Gen != rows.Gen || n < s.pass.n):
		// The pass reads another state of the index (a commit that
		// rebuilt the rows came in between): this query reads its own
		// state alone.
		s.mu.Unlock()
		res, err := Batch(ctx, rows, n, [][]float32{q}, []int{k})
		if err != nil {
			return nil, err
		}
		return res[0], nil
	}
	// The pass reads these rows, or the first p.n of them: a commit that
	// appended rows (the same Gen) came in between. The query joins the
	// pass and scores the rows after those itself.
	from := s.pass.n
	s.joined = append(s.joined, m)
	s.mu.Unlock()
	var extra []topk.Scored
	if from < n {
		s.extended.Add(1)
		res, err := batchRange(ctx, rows, from, n, [][]float32{q}, []int{k})
		if err != nil {
			m.gone.Store(true)
			return nil, err
		}
		extra = res[0]
	}
	select {
	case <-m.done:
		if m.err != nil || extra == nil {
			return m.res, m.err
		}
		return topk.Best(k, m.res, extra), nil
	case <-ctx.Done():
		m.gone.Store(true)
		return nil, ctx.Err()
	}
}

// segments is the number of segments of a pass over n rows.
func segments(n int) int {
	return max(1, min(maxSegments, n/MinSegmentRows))
}

// drive scores p's segments, taking in the queries that joined before
// each, until own has its answer (or own's ctx ends); then it hands what is
// left of the pass to a goroutine of its own, or ends it. own is nil on
// that goroutine, which drives until no query is left.
func (s *Shared) drive(ctx context.Context, p *pass, own *member) {
	for {
		s.mu.Lock()
		for _, m := range s.joined {
			m.left = p.segs
			p.active = append(p.active, m)
		}
		s.joined = nil
		p.active = slices.DeleteFunc(p.active, func(m *member) bool {
			if m == own && ctx.Err() != nil {
				m.err = ctx.Err()
				close(m.done)
				return true
			}
			return m.gone.Load()
		})
		ownDone := own != nil && !slices.Contains(p.active, own)
		switch {
		case len(p.active) == 0:
			s.pass = nil
			s.mu.Unlock()
			return
		case ownDone:
			s.mu.Unlock()
			go s.drive(context.Background(), p, nil)
			return
		}
		s.mu.Unlock()
		p.score()
	}
}

// score scores the next segment for every active query and answers those
// that have now scored every segment.
func (p *pass) score() {
	lo, hi := p.seg*p.n/p.segs, (p.seg+1)*p.n/p.segs
	p.seg = (p.seg + 1) % p.segs
	queries, ks := make([][]float32, len(p.active)), make([]int, len(p.active))
	for j, m := range p.active {
		queries[j], ks[j] = m.q, m.k
	}
	// A segment is a few milliseconds at most; a caller that gives up
	// leaves at the next one.
	parts, _ := batchRange(context.Background(), p.rows, lo, hi, queries, ks)
	kept := p.active[:0]
	for j, m := range p.active {
		m.parts = append(m.parts, parts[j])
		if m.left--; m.left > 0 {
			kept = append(kept, m)
			continue
		}
		m.res = topk.Best(m.k, m.parts...)
		close(m.done)
	}
	clear(p.active[len(kept):])
	p.active = kept
}

// running returns the pass running, nil when none (tests).
func (s *Shared) running() *pass {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pass
}
