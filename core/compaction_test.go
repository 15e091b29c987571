package core

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
)

// TestCompactRacesWritesAndQueries compacts a segmented index over and
// over while a writer changes it and readers query it: no write is lost,
// no query fails, and the files hold what the writer wrote.
func TestCompactRacesWritesAndQueries(t *testing.T) {
	ctx := context.Background()
	st := NewMemoryStorage()
	opts := IndexOptions{Storage: st, Codec: jsonTestCodec{}, RetainDropped: -1}
	ix := newSegmentedIndex(t, opts)
	rng := rand.New(rand.NewPCG(3, 3))
	want := map[string][]float32{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var compactions atomic.Int64
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			rep, err := ix.Compact(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			if rep.Segments > 0 {
				compactions.Add(1)
			}
		}
	})
	for r := range 2 {
		wg.Go(func() {
			q := rand.New(rand.NewPCG(uint64(r), 9))
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := ix.QueryItems(ctx, randomVector(q, 4), "", 3, nil, false); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	// The writer goes on past 400 writes until the compactor has merged
	// segments three times, so a fast machine cannot finish the writes
	// before the compactor's first turn; 200,000 writes bound it.
	writes := 0
	for i := 0; i < 400 || compactions.Load() < 3; i++ {
		if i == 200000 {
			break
		}
		writes++
		id := fmt.Sprint("k", rng.IntN(60))
		if i%4 == 3 {
			if err := ix.DeleteItem(ctx, id); err != nil {
				t.Fatal(err)
			}
			delete(want, id)
			continue
		}
		v := randomVector(rng, 4)
		if _, err := ix.UpsertItem(ctx, IndexItem{ID: id, Vector: v}); err != nil {
			t.Fatal(err)
		}
		want[id] = v
	}
	close(done)
	wg.Wait()
	fresh, err := NewLocalIndex(idxTestFolder, opts)
	if err != nil {
		t.Fatal(err)
	}
	items, err := fresh.ListItems(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]float32{}
	for _, it := range items {
		got[it.ID] = it.Vector
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the files hold %d items, the writer left %d", len(got), len(want))
	}
	if compactions.Load() < 3 {
		t.Fatalf("%d compactions during %d writes; want 3", compactions.Load(), writes)
	}
	t.Logf("%d compactions during %d writes", compactions.Load(), writes)
}

// CompactIfDue leaves an index alone until its segments hold 4,096
// tombstoned rows and a quarter of their rows, then compacts it: the
// items are the same and the tombstones gone.
func TestCompactIfDue(t *testing.T) {
	ctx := context.Background()
	ix, st := newCreatedIndex(t, CreateIndexConfig{Layout: LayoutSegmented})
	items := insertRandom(t, ix, rand.New(rand.NewPCG(5, 5)), "i", 12000, 4)
	deleteRange := func(lo, hi int) {
		t.Helper()
		if err := ix.BeginUpdate(ctx); err != nil {
			t.Fatal(err)
		}
		for i := lo; i < hi; i++ {
			if err := ix.DeleteItem(ctx, fmt.Sprint("i", i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := ix.EndUpdate(ctx); err != nil {
			t.Fatal(err)
		}
	}
	deleteRange(0, 3000) // 3,000 tombstones: a quarter of the rows, fewer than 4,096
	if rep, err := ix.CompactIfDue(ctx); err != nil || rep.Segments != 0 {
		t.Fatalf("CompactIfDue with 3,000 tombstones = %+v, %v; want nothing done", rep, err)
	}
	deleteRange(3000, 4500)
	before := queryIDs(t, ix, items[7000].Vector, 20)
	// An index not loaded yet decides from its manifest.
	rep, err := reopen(t, st).CompactIfDue(ctx)
	if err != nil || rep.Segments != 3 || rep.Tombstones != 4500 {
		t.Fatalf("CompactIfDue with 4,500 tombstones = %+v, %v; want 3 segments, 4,500 tombstones", rep, err)
	}
	after := reopen(t, st)
	stats, err := after.GetIndexStats(ctx)
	if err != nil || stats.Items != 7500 || stats.Storage.Segments != 1 || stats.Storage.Tombstones != 0 {
		t.Fatalf("after: %+v, %v", stats, err)
	}
	if got := queryIDs(t, after, items[7000].Vector, 20); !reflect.DeepEqual(got, before) {
		t.Fatalf("query after compaction %v, before %v", got, before)
	}
	if rep, err := after.CompactIfDue(ctx); err != nil || rep.Segments != 0 {
		t.Fatalf("CompactIfDue again = %+v, %v; want nothing done", rep, err)
	}
}

// A commit merges segments only while that writes at most
// mergeInCommitRows rows: eight segments of 4,100 rows stay eight, and
// CompactIfDue merges them in the background (TestCompactIfDueMerges).
func TestCommitsLeaveLargeMergesToCompaction(t *testing.T) {
	ctx := context.Background()
	ix, _ := newCreatedIndex(t, CreateIndexConfig{Layout: LayoutSegmented})
	rng := rand.New(rand.NewPCG(6, 6))
	const per = 4100 // class 4: eight of them are 32,800 rows
	for b := range mergeFanIn {
		insertRandom(t, ix, rng, fmt.Sprint(b, "-"), per, 2)
	}
	stats, err := ix.GetIndexStats(ctx)
	if err != nil || stats.Items != mergeFanIn*per || stats.Storage.Segments != mergeFanIn {
		t.Fatalf("after %d batches of %d: %+v, %v; want %d segments", mergeFanIn, per, stats, err, mergeFanIn)
	}
	// Small segments still merge among themselves.
	for i := range mergeFanIn {
		if _, err := ix.UpsertItem(ctx, IndexItem{ID: fmt.Sprint("s", i), Vector: randomVector(rng, 2)}); err != nil {
			t.Fatal(err)
		}
	}
	if stats, _ = ix.GetIndexStats(ctx); stats.Storage.Segments != mergeFanIn+1 {
		t.Fatalf("after %d single upserts: %d segments, want %d", mergeFanIn, stats.Storage.Segments, mergeFanIn+1)
	}
}

// CompactIfDue merges, when no compaction is due, the newest run of eight
// or more segments of one size class that commits leave: behind a large
// first segment whose items later commits deleted, eight segments of
// 4,100 rows (one of them with deletes of its own), with the smaller ones
// between and after them, become one, the deletes of the first segment's items are
// kept (the merged segment carries their tombstones), and the index,
// reopened, holds the same items and answers the same; a second call has
// nothing to do.
func TestCompactIfDueMerges(t *testing.T) {
	ctx := context.Background()
	ix, st := newCreatedIndex(t, CreateIndexConfig{Layout: LayoutSegmented})
	rng := rand.New(rand.NewPCG(8, 8))
	first := insertRandom(t, ix, rng, "big-", 40_000, 4) // class 5
	const per = 4100
	for b := range mergeFanIn {
		insertRandom(t, ix, rng, fmt.Sprint(b, "-"), per, 4)
		if b == 3 {
			// Deletes of the first segment's items and of this batch's:
			// tombstones in the next segment.
			if err := ix.DeleteItems(ctx, []string{first[10].ID, first[20].ID, "3-7"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range 3 {
		mustInsert(t, ix, fmt.Sprint("small-", i), randomVector(rng, 4), nil)
	}
	before, err := ix.GetIndexStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	q := first[500].Vector
	want := queryIDs(t, ix, q, 30)
	segs := len(ix.lay.(*segLayout).man.Segments)
	rep, err := ix.CompactIfDue(ctx)
	if err != nil || rep.Segments < mergeFanIn {
		t.Fatalf("CompactIfDue = %+v, %v; want the eight segments of 4,100 rows merged", rep, err)
	}
	m := ix.lay.(*segLayout).man
	if len(m.Segments) != 2 || segs-rep.Segments+1 != 2 || m.Segments[0].Rows != 40_000 || m.Segments[1].Rows != mergeFanIn*per-1+3 {
		t.Fatalf("after the merge the manifest names %+v", m.Segments)
	}
	if m.Segments[1].Tombstones != 2 {
		t.Fatalf("the merged segment carries %d tombstones, want the first segment's 2", m.Segments[1].Tombstones)
	}
	for _, ix := range []*LocalIndex{ix, reopen(t, st)} {
		after, err := ix.GetIndexStats(ctx)
		if err != nil || after.Items != before.Items || after.Items != 40_000+mergeFanIn*per+3-3 {
			t.Fatalf("after the merge %+v, %v; before %+v", after, err, before)
		}
		for _, id := range []string{first[10].ID, first[20].ID, "3-7"} {
			if _, ok, err := ix.GetItem(ctx, id); ok || err != nil {
				t.Fatalf("deleted item %s is back after the merge (%v)", id, err)
			}
		}
		if got := queryIDs(t, ix, q, 30); !reflect.DeepEqual(got, want) {
			t.Fatalf("query after the merge %v, before %v", got, want)
		}
	}
	if rep, err := ix.CompactIfDue(ctx); err != nil || rep.Segments != 0 {
		t.Fatalf("CompactIfDue again = %+v, %v; want nothing done", rep, err)
	}
}

// queryIDs is the ids of the top k items for v, best first.
func queryIDs(t *testing.T, ix *LocalIndex, v []float32, k int) []string {
	t.Helper()
	res, err := ix.QueryItems(context.Background(), v, "", k, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(res))
	for i, r := range res {
		ids[i] = r.Item.ID
	}
	return ids
}

// TestSegmentedCommitWritesOnlyTheChange checks that a commit on the
// segmented layout writes a segment about the size of the change and the
// manifest, never the items already stored.
func TestSegmentedCommitWritesOnlyTheChange(t *testing.T) {
	ctx := context.Background()
	ix, st := newCreatedIndex(t, CreateIndexConfig{Layout: LayoutSegmented})
	rng := rand.New(rand.NewPCG(1, 2))
	items := make([]IndexItem, 2000)
	for i := range items {
		items[i] = IndexItem{ID: fmt.Sprintf("i%d", i), Vector: randomVector(rng, 16)}
	}
	if _, err := ix.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	big := st.totalBytes(idxTestFolder)
	for i := range 20 {
		before := st.bytesWritten()
		if _, err := ix.UpsertItem(ctx, IndexItem{ID: fmt.Sprintf("i%d", i*7), Vector: randomVector(rng, 16)}); err != nil {
			t.Fatal(err)
		}
		if w := st.bytesWritten() - before; w > big/20 {
			t.Fatalf("upsert %d wrote %d bytes; the index is %d", i, w, big)
		}
	}
	stats, _ := ix.GetIndexStats(ctx)
	if stats.Items != 2000 || stats.Storage.Tombstones == 0 {
		t.Fatalf("stats %+v", stats)
	}
}

// Background merges race writes and queries: one index value (another
// process, as far as the folder can tell) calls CompactIfDue over and over
// while a second writes single upserts and deletes and now and then a
// batch of 4,100 rows (so that eight of them make a merge due), and
// readers query the second: no write is lost, no query fails, segments
// are merged more than once, and the files hold what the writer wrote.
func TestMergesRaceWritesAndQueries(t *testing.T) {
	ctx := context.Background()
	st := NewMemoryStorage()
	opts := IndexOptions{Storage: st, Codec: jsonTestCodec{}, RetainDropped: -1}
	w := newSegmentedIndex(t, opts)
	merger, err := NewLocalIndex(idxTestFolder, opts)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	want := map[string][]float32{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var merges atomic.Int64
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			rep, err := merger.CompactIfDue(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			if rep.Segments > 0 {
				merges.Add(1)
			}
		}
	})
	wg.Go(func() {
		q := rand.New(rand.NewPCG(7, 9))
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := w.QueryItems(ctx, randomVector(q, 4), "", 3, nil, false); err != nil {
				t.Error(err)
				return
			}
		}
	})
	const batch = 4100
	batches := 0
	for i := 0; i < 200_000 && (merges.Load() < 2 || i < 400); i++ {
		switch {
		case i%25 == 0 && batches < 32:
			items := make([]IndexItem, batch)
			for j := range items {
				items[j] = IndexItem{ID: fmt.Sprint("b", batches, "-", j), Vector: randomVector(rng, 4)}
				want[items[j].ID] = items[j].Vector
			}
			if _, err := w.BatchInsertItems(ctx, items); err != nil {
				t.Fatal(err)
			}
			batches++
		case i%4 == 3:
			id := fmt.Sprint("b", rng.IntN(batches), "-", rng.IntN(batch))
			if rng.IntN(2) == 0 {
				id = fmt.Sprint("k", rng.IntN(60))
			}
			if err := w.DeleteItem(ctx, id); err != nil {
				t.Fatal(err)
			}
			delete(want, id)
		default:
			id := fmt.Sprint("k", rng.IntN(60))
			v := randomVector(rng, 4)
			if _, err := w.UpsertItem(ctx, IndexItem{ID: id, Vector: v}); err != nil {
				t.Fatal(err)
			}
			want[id] = v
		}
	}
	close(done)
	wg.Wait()
	fresh, err := NewLocalIndex(idxTestFolder, opts)
	if err != nil {
		t.Fatal(err)
	}
	items, err := fresh.ListItems(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]float32{}
	for _, it := range items {
		got[it.ID] = it.Vector
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the files hold %d items, the writer left %d", len(got), len(want))
	}
	if merges.Load() < 2 {
		t.Fatalf("%d merges in %d batches; want 2", merges.Load(), batches)
	}
	t.Logf("%d merges or compactions in %d batches", merges.Load(), batches)
}
