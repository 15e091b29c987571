//go:build unix

package acceptance_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/foliovec/folio"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

// Benchmarks of sharing a folder between processes: what the folder lock
// and the freshness check cost a commit and a query, against the same
// storage with both capabilities hidden (Vectra's behaviour), and the
// throughput of 4 writer processes against 1.

// sharingModes are the storages compared: storagefs as it is, and with
// FolderLocker and FileVersioner hidden.
var sharingModes = []struct {
	name    string
	storage func() core.FileStorage
}{
	{"shared", func() core.FileStorage { return localStorage() }},
	{"unshared", func() core.FileStorage { return hiddenCapabilities{localStorage()} }},
}

// BenchmarkSharedFolderCommit is one InsertItem (a commit rewriting the
// index file) on a 1,000×384 protobuf index.
func BenchmarkSharedFolderCommit(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "idx")
	writeBenchIndex(b, dir, codecpb.New(), 1_000, 384)
	v := make([]float32, 384)
	v[1] = 1
	for _, mode := range sharingModes {
		b.Run(mode.name, func(b *testing.B) {
			ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codecpb.New(), Storage: mode.storage()})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				if _, err := ix.UpsertItem(ctx, core.IndexItem{ID: fmt.Sprint("new-", i%100), Vector: v}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSharedFolderQuery100kx384 is an idle top-10 query (no other
// process writing) on a 100k×384 index: with the default freshness
// interval, with a check on every query, and unshared.
func BenchmarkSharedFolderQuery100kx384(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "idx")
	writeBenchIndex(b, dir, codecpb.New(), 100_000, 384)
	q := benchGaussianItems(1, 384)[0].Vector
	modes := []struct {
		name    string
		storage core.FileStorage
		every   time.Duration
	}{
		{"shared", localStorage(), 0},
		{"shared-check-every-query", localStorage(), time.Nanosecond},
		{"unshared", hiddenCapabilities{localStorage()}, 0},
	}
	for _, mode := range modes {
		b.Run(mode.name, func(b *testing.B) {
			ix, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codecpb.New(), Storage: mode.storage, FreshnessInterval: mode.every})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if _, err := ix.GetIndexStats(ctx); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			b.ResetTimer()
			for b.Loop() {
				if res, err := ix.QueryItems(ctx, q, "", 10, nil, false); err != nil || len(res) != 10 {
					b.Fatal(len(res), err)
				}
			}
		})
	}
}

// BenchmarkMultiProcessWriters is 1 or 4 processes each inserting 500
// items in batches of 10 into one 1,000-item folder at once; items/s is
// all items over the wall time, process start included.
func BenchmarkMultiProcessWriters(b *testing.B) {
	for _, procs := range []int{1, 4} {
		b.Run(fmt.Sprint(procs), func(b *testing.B) {
			var items int
			var elapsed time.Duration
			for b.Loop() {
				b.StopTimer()
				dir := filepath.Join(b.TempDir(), "idx")
				writeBenchIndex(b, dir, codecpb.New(), 1_000, mpDim)
				b.StartTimer()
				start := time.Now()
				var writers []*mpProcess
				for w := range procs {
					writers = append(writers, startMP(b, "insert", "protobuf", dir, w))
				}
				for _, w := range writers {
					if err := w.Wait(); err != nil {
						b.Fatalf("writer: %v", err)
					}
				}
				elapsed += time.Since(start)
				items += 500 * procs
			}
			b.ReportMetric(float64(items)/elapsed.Seconds(), "items/s")
		})
	}
}
