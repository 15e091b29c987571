package scan

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestSharedAnswersAsTopK: queries sent at once from many goroutines, over
// one segment and over several, with ties and zero rows, each get exactly
// TopK's answer, whatever pass they shared and wherever they joined it.
func TestSharedAnswersAsTopK(t *testing.T) {
	const d = 8
	ctx := context.Background()
	for _, n := range []int{1, 300, 3*minChunkRows + 5, maxChunks*minChunkRows + 77} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, uint64(n)))
			rows, meta := rowsOf(r, n, d)
			// Repeat some rows so that scores tie across segments.
			for i := n / 2; i < n; i += 97 {
				copy(rows.Arena[i*d:(i+1)*d], rows.Arena[(i%97)*d:])
				rows.Scale[i] = rows.Scale[i%97]
			}
			sel := Selection[map[string]any]{Meta: meta, All: true}
			const clients, each = 8, 6
			var s Shared
			var wg sync.WaitGroup
			errs := make(chan error, clients*each)
			for c := range clients {
				wg.Go(func() {
					r := rand.New(rand.NewPCG(uint64(c), 9))
					for i := range each {
						q := rows.Vector(r.IntN(n)) // ties with the row itself and its copies
						if i%2 == 1 {
							q = make([]float32, d)
							for j := range q {
								q[j] = float32(r.NormFloat64())
							}
						}
						if q := q; slices.Max(q) == 0 && slices.Min(q) == 0 {
							continue // Shared takes directed queries only
						}
						k := []int{1, 10, min(n+5, 3000)}[i%3] // more than n for the small rows
						got, err := s.TopK(ctx, rows, n, q, k)
						if err != nil {
							errs <- err
							return
						}
						want, err := TopK(ctx, rows, sel, q, k)
						if err != nil {
							errs <- err
							return
						}
						if !slices.Equal(got, want) {
							errs <- fmt.Errorf("client %d query %d k %d: differs from TopK at rank %d", c, i, k, firstDiff(slotsOf(got), slotsOf(want)))
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			// The goroutine a pass was handed to ends with it.
			for deadline := time.Now().Add(10 * time.Second); s.running() != nil; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("a pass is still running after every query was answered")
				}
			}
		})
	}
}

// A query whose context ends while it waits in a pass returns at once; the
// pass goes on for the others, and a query over other rows (another state
// of the index) is answered alone while a pass runs.
func TestSharedCancelAndOtherRows(t *testing.T) {
	const d = 64
	n := 64 * minChunkRows
	r := rand.New(rand.NewPCG(5, 6))
	rows, meta := rowsOf(r, n, d)
	other, otherMeta := rowsOf(r, 1000, d)
	q := rows.Vector(1)
	var s Shared
	// Hold a pass open: a driver whose segments keep going while queries
	// join, by keeping queries flowing from a few goroutines.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.TopK(context.Background(), rows, n, q, 5); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()
	for s.running() == nil {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if _, err := s.TopK(ctx, rows, n, q, 5); err != context.Canceled {
		t.Fatalf("cancelled query: %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a cancelled query took %v", took)
	}
	oq := other.Vector(3)
	got, err := s.TopK(context.Background(), other, 1000, oq, 4)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := TopK(context.Background(), other, Selection[map[string]any]{Meta: otherMeta, All: true}, oq, 4)
	if !slices.Equal(got, want) {
		t.Fatalf("other rows: %v, want %v", got, want)
	}
	got, err = s.TopK(context.Background(), rows, n, q, 5)
	if err != nil {
		t.Fatal(err)
	}
	want, _ = TopK(context.Background(), rows, Selection[map[string]any]{Meta: meta, All: true}, q, 5)
	if !slices.Equal(got, want) {
		t.Fatalf("after the cancel: %v, want %v", got, want)
	}
}

// Queries on rows that extend those of the running pass by a few rows (a
// commit appended them: the same Gen) join it and score the new rows
// themselves; their answers are TopK's over all their rows. Rows extended
// by many more are read alone.
func TestSharedJoinsAcrossAppends(t *testing.T) {
	const d = 32
	n := 32 * minChunkRows
	r := rand.New(rand.NewPCG(7, 8))
	full, fullMeta := rowsOf(r, n+n/4, d)
	gen := new(Lineage)
	base := &Rows{Dim: d, Arena: full.Arena[:n*d], Scale: full.Scale[:n], Gen: gen}
	grown := &Rows{Dim: d, Arena: full.Arena[:(n+500)*d], Scale: full.Scale[:n+500], Gen: gen}
	meta := fullMeta[:n+500]
	var s Shared
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 3 {
		wg.Go(func() {
			q := base.Vector(c)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.TopK(context.Background(), base, n, q, 5); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()
	for s.running() == nil {
		time.Sleep(time.Millisecond)
	}
	sel := Selection[map[string]any]{Meta: meta, All: true}
	for i := range 40 {
		q := grown.Vector(n + i*7) // an appended row: it must rank first
		k := 1 + i%12
		got, err := s.TopK(context.Background(), grown, n+500, q, k)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := TopK(context.Background(), grown, sel, q, k)
		if !slices.Equal(got, want) {
			t.Fatalf("query %d k %d on the grown rows: %v, want %v", i, k, got, want)
		}
	}
	if s.extended.Load() == 0 {
		t.Fatal("no query on the grown rows joined the pass over the first ones")
	}
	far := &Rows{Dim: d, Arena: full.Arena, Scale: full.Scale, Gen: gen}
	before := s.extended.Load()
	q := far.Vector(n + n/4 - 1)
	got, err := s.TopK(context.Background(), far, n+n/4, q, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := TopK(context.Background(), far, Selection[map[string]any]{Meta: fullMeta, All: true}, q, 3); !slices.Equal(got, want) {
		t.Fatalf("the far-grown rows: %v, want %v", got, want)
	}
	if s.extended.Load() != before {
		t.Fatal("rows grown by a quarter joined the pass over the first ones")
	}
	// Rows of another lineage never join it.
	other := &Rows{Dim: d, Arena: full.Arena, Scale: full.Scale, Gen: new(Lineage)}
	before = s.extended.Load()
	if _, err := s.TopK(context.Background(), other, n+500, grown.Vector(1), 3); err != nil {
		t.Fatal(err)
	}
	if s.extended.Load() != before {
		t.Fatal("rows of another lineage joined the pass")
	}
}
