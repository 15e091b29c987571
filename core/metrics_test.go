package core

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// Each counter of Metrics moves when its cause happens, and only then: a
// query, a failed query, a batch of queries, a commit, a compaction that
// does something and one that does not, a reload of another process's
// commit. Counting is safe beside queries and writes (run under -race).
func TestMetricsCountWhatTheIndexDoes(t *testing.T) {
	ctx := context.Background()
	st := NewMemoryStorage()
	// Checking for other processes' commits at every query.
	ix := newSegmentedIndex(t, IndexOptions{Storage: st, RetainDropped: -1, FreshnessInterval: time.Nanosecond})
	if m := ix.Metrics(); m != (IndexMetrics{}) {
		t.Fatalf("a new index has metrics %+v", m)
	}
	for i, v := range [][]float32{{1, 0}, {0, 1}, {1, 1}} {
		if _, err := ix.InsertItem(ctx, IndexItem{ID: string(rune('a' + i)), Vector: v}); err != nil {
			t.Fatal(err)
		}
	}
	m := ix.Metrics()
	if m.Commits != 3 || m.CommitErrors != 0 || m.CommitTime <= 0 || m.Queries != 0 {
		t.Errorf("after 3 inserts: %+v", m)
	}
	if _, err := ix.QueryItems(ctx, []float32{1, 0}, "", 2, nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.QueryItems(ctx, []float32{1, 0, 0}, "", 2, nil, false); err == nil {
		t.Fatal("a query of the wrong dimensions succeeded")
	}
	if _, err := ix.QueryItemsBatch(ctx, []ItemQuery{{Vector: []float32{1, 0}, TopK: 1}, {Vector: []float32{0, 1}, TopK: 1}}); err != nil {
		t.Fatal(err)
	}
	m = ix.Metrics()
	if m.Queries != 4 || m.QueryErrors != 1 || m.QueryTime <= 0 {
		t.Errorf("after 2 queries (one failed) and a batch of 2: %+v", m)
	}
	if m.ExactScans != 3 || m.FilteredScans != 0 || m.CodeScans != 0 || m.KeywordQueries != 0 {
		t.Errorf("after 3 unfiltered queries scored: %+v", m)
	}
	if _, err := ix.QueryItems(ctx, []float32{1, 0}, "", 2, Filter{"id": "a"}, false); err != nil {
		t.Fatal(err)
	}
	if m = ix.Metrics(); m.FilteredScans != 1 || m.ExactScans != 3 {
		t.Errorf("after a filtered query: %+v", m)
	}
	if rep, err := ix.Compact(ctx); err != nil || rep.Segments == 0 {
		t.Fatalf("compact: %+v, %v", rep, err)
	}
	if _, err := ix.Compact(ctx); err != nil { // one segment, no tombstones: nothing to do
		t.Fatal(err)
	}
	if m = ix.Metrics(); m.Compactions != 1 || m.CompactionErrors != 0 || m.CompactionTime <= 0 {
		t.Errorf("after a compaction and one with nothing to do: %+v", m)
	}
	// Small commits merge their segments once eight of one size gather.
	for i := range 10 {
		if _, err := ix.UpsertItem(ctx, IndexItem{ID: "m", Vector: []float32{float32(i), 2}}); err != nil {
			t.Fatal(err)
		}
	}
	if m = ix.Metrics(); m.Merges == 0 || m.Compactions != 1 {
		t.Errorf("after 10 small commits: %+v, want merges and no more compactions", m)
	}

	// Another process commits; this one's next query loads it.
	other := openTestIndex(t, IndexOptions{Storage: st, RetainDropped: -1, Codec: jsonTestCodec{}})
	if _, err := other.InsertItem(ctx, IndexItem{ID: "d", Vector: []float32{1, 2}}); err != nil {
		t.Fatal(err)
	}
	reloaded := false
	for range 3 {
		if _, err := ix.QueryItems(ctx, []float32{1, 0}, "", 4, nil, false); err != nil {
			t.Fatal(err)
		}
		if ix.Metrics().Reloads > 0 {
			reloaded = true
			break
		}
		time.Sleep(time.Millisecond)
	}
	if !reloaded {
		t.Errorf("another process's commit was never counted as a reload: %+v", ix.Metrics())
	}

	// Beside queries and writes.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				_, err := ix.QueryItems(ctx, []float32{1, 0}, "", 1, nil, false)
				if err != nil && !errors.Is(err, context.Canceled) {
					t.Error(err)
				}
				_ = ix.Metrics()
			}
		})
	}
	wg.Go(func() {
		for i := range 10 {
			if _, err := ix.UpsertItem(ctx, IndexItem{ID: "w", Vector: []float32{float32(i), 1}}); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	before := m.Queries
	if got := ix.Metrics(); got.Queries < before+80 || got.Commits < m.Commits+10 {
		t.Errorf("after 80 queries and 10 upserts beside them: %+v", got)
	}
}

// An index that scans codes counts its queries as code scans, in a batch
// too.
func TestMetricsCountCodeScans(t *testing.T) {
	ctx := context.Background()
	ix := newSegmentedIndex(t, IndexOptions{Storage: NewMemoryStorage(), ScanCodes: CodesInt8})
	for i, v := range [][]float32{{1, 0}, {0, 1}, {1, 1}} {
		if _, err := ix.InsertItem(ctx, IndexItem{ID: string(rune('a' + i)), Vector: v}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ix.QueryItems(ctx, []float32{1, 0}, "", 2, nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.QueryItemsBatch(ctx, []ItemQuery{{Vector: []float32{1, 0}, TopK: 1}, {Vector: []float32{0, 1}, TopK: 1}}); err != nil {
		t.Fatal(err)
	}
	if m := ix.Metrics(); m.CodeScans != 3 || m.ExactScans != 0 || m.Queries != 3 {
		t.Errorf("after 3 queries on int8 codes: %+v", m)
	}
}
