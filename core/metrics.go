package core

import (
	"sync/atomic"
	"time"
)

// IndexMetrics are what an index has done since NewLocalIndex, in the
// spirit of database/sql's DBStats: running totals, cheap enough to be
// kept always (atomic counters, no lock on the query path), for a
// monitoring system to turn into rates. Gauges (items, segments,
// tombstones) are GetIndexStats'.
type IndexMetrics struct {
	// Queries are the queries answered or refused (QueryItems, Query and
	// each query of QueryItemsBatch; a document query counts the item
	// queries it makes); QueryErrors are those that failed; QueryTime is
	// their time in all (a batch's time counts once).
	Queries, QueryErrors uint64
	QueryTime            time.Duration
	// How the queries were scored: ExactScans read every vector (alone,
	// in a shared pass or in a batch), FilteredScans only the rows a
	// filter selected, CodeScans the compact codes before re-ranking the
	// best exactly (IndexOptions.ScanCodes); KeywordQueries also ranked
	// BM25 keyword hits. A query that failed before its scan counts in
	// none.
	ExactScans, FilteredScans, CodeScans, KeywordQueries uint64
	// ProbedScans are the CodeScans that read only the rows of the
	// partitions nearest their query (IndexOptions.Partitions).
	ProbedScans uint64
	// Commits are the batches written (every write commits one, unless it
	// joins an open BeginUpdate batch); CommitErrors those that failed;
	// CommitTime their time in all.
	Commits, CommitErrors uint64
	CommitTime            time.Duration
	// Compactions are the rewrites of a segmented index's segments that
	// did something (Compact, and CompactIfDue's compactions and merges);
	// CompactionErrors those that failed; CompactionTime their time in
	// all, those that found nothing to do included.
	Compactions, CompactionErrors uint64
	CompactionTime                time.Duration
	// Merges are the commits that merged small segments into the one they
	// wrote (their time is CommitTime's).
	Merges uint64
	// Reloads are the loads of what another process committed.
	Reloads uint64
}

// metrics holds IndexMetrics' counters.
type metrics struct {
	queries, queryErrors, queryNanos               atomic.Uint64
	exactScans, filteredScans, codeScans, keyword  atomic.Uint64
	probedScans                                    atomic.Uint64
	commits, commitErrors, commitNanos             atomic.Uint64
	compactions, compactionErrors, compactionNanos atomic.Uint64
	reloads, merges                                atomic.Uint64
}

// count adds n calls that started at start, failed when err is not nil, to
// a count, its errors and its time.
func count(n uint64, start time.Time, err error, calls, errs, nanos *atomic.Uint64) {
	calls.Add(n)
	if err != nil {
		errs.Add(n)
	}
	nanos.Add(uint64(time.Since(start)))
}

// Metrics returns the index's running totals. It is safe to call at any
// time from any goroutine, and costs a few atomic loads.
func (ix *LocalIndex) Metrics() IndexMetrics {
	m := &ix.metrics
	return IndexMetrics{
		Queries: m.queries.Load(), QueryErrors: m.queryErrors.Load(), QueryTime: time.Duration(m.queryNanos.Load()),
		ExactScans: m.exactScans.Load(), FilteredScans: m.filteredScans.Load(), CodeScans: m.codeScans.Load(), KeywordQueries: m.keyword.Load(),
		ProbedScans: m.probedScans.Load(),
		Commits:     m.commits.Load(), CommitErrors: m.commitErrors.Load(), CommitTime: time.Duration(m.commitNanos.Load()),
		Compactions: m.compactions.Load(), CompactionErrors: m.compactionErrors.Load(), CompactionTime: time.Duration(m.compactionNanos.Load()),
		Merges: m.merges.Load(), Reloads: m.reloads.Load(),
	}
}
