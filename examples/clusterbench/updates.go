package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/conformance/testkit/clustered"
	"github.com/foliovec/folio/core"
)

// updateSingles and updateBulk are the single upserts, then the rows
// upserted in batches of updateBatch, that the updates phase writes.
const (
	updateSingles = 200
	updateBulk    = 100_000
	updateBatch   = 1_000
)

// updates measures writes to a copy of the index opened with partitions:
// single upserts (each a commit, fsync included), then many rows drawn from
// other centres, and the queries' recall and latency after them and after
// a compaction.
func updates(c config) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp(c.dir, "updates-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	copyDir := filepath.Join(dir, "ix")
	if out, err := exec.Command("cp", "-r", c.index(), copyDir).CombinedOutput(); err != nil {
		return fmt.Errorf("copy the index: %v: %s", err, out)
	}
	fs, err := storagefs.New(nil)
	if err != nil {
		return err
	}
	open := func(codes core.ScanCodes, parts bool) (*core.LocalIndex, error) {
		return core.NewLocalIndex(copyDir, core.IndexOptions{Storage: fs, Codec: codecpb.New(), ScanCodes: codes, Partitions: parts, TargetRecall: c.recall})
	}
	ix, err := open(core.CodesInt4, true)
	if err != nil {
		return err
	}
	start := time.Now()
	if _, err := ix.GetIndexStats(ctx); err != nil {
		return err
	}
	fmt.Printf("updates   open with partitions %v\n", time.Since(start).Round(time.Millisecond))
	other := clustered.New(c.d, c.centres, 0, c.seed+1) // other centres
	item := func(i int) core.IndexItem {
		v := make([]float32, c.d)
		other.Vector(i, v)
		return core.IndexItem{ID: "u" + strconv.Itoa(i), Vector: v}
	}
	lat := make([]time.Duration, updateSingles)
	for i := range lat {
		t := time.Now()
		if _, err := ix.UpsertItem(ctx, item(i)); err != nil {
			return err
		}
		lat[i] = time.Since(t)
	}
	slices.Sort(lat)
	fmt.Printf("updates   %d single upserts: p50 %.2f ms, p99 %.2f ms\n", updateSingles, ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]))
	start = time.Now()
	for lo := updateSingles; lo < updateSingles+updateBulk; lo += updateBatch {
		batch := make([]core.IndexItem, updateBatch)
		for j := range batch {
			batch[j] = item(lo + j)
		}
		if _, err := ix.BatchInsertItems(ctx, batch); err != nil {
			return err
		}
	}
	fmt.Printf("updates   %d more rows from other centres in batches of %d: %v\n", updateBulk, updateBatch, time.Since(start).Round(time.Millisecond))
	if err := c.recallAfter(ix, open, "after the upserts"); err != nil {
		return err
	}
	start = time.Now()
	if _, err := ix.Compact(ctx); err != nil {
		return err
	}
	if _, err := ix.GetIndexStats(ctx); err != nil {
		return err
	}
	fmt.Printf("updates   compaction and training %v\n", time.Since(start).Round(time.Millisecond))
	return c.recallAfter(ix, open, "after the compaction")
}

// recallAfter prints ix's single-query p50 and recall@10 against the exact
// answers of an index without codes over the same folder.
func (c config) recallAfter(ix *core.LocalIndex, open func(core.ScanCodes, bool) (*core.LocalIndex, error), when string) error {
	ctx := context.Background()
	exact, err := open("", false)
	if err != nil {
		return err
	}
	set := clustered.New(c.d, c.centres, 0, c.seed)
	qs := make([]core.ItemQuery, c.queries)
	for j := range qs {
		qs[j] = core.ItemQuery{Vector: make([]float32, c.d), TopK: topK}
		set.Query(j, qs[j].Vector)
	}
	truth, err := exact.QueryItemsBatch(ctx, qs)
	if err != nil {
		return err
	}
	lat := make([]time.Duration, len(qs))
	hits, wanted := 0, 0
	for j, q := range qs {
		t := time.Now()
		res, err := ix.Query(ctx, q)
		lat[j] = time.Since(t)
		if err != nil {
			return err
		}
		for _, w := range truth[j] {
			wanted++
			if slices.ContainsFunc(res, func(r core.QueryResult) bool { return r.Item.ID == w.Item.ID }) {
				hits++
			}
		}
	}
	slices.Sort(lat)
	st, err := ix.GetIndexStats(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("updates   %s: single query p50 %.2f ms, p99 %.2f ms; recall@%d %.4f (%d partitions, %.1f probed)\n",
		when, ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]), topK, float64(hits)/float64(wanted), st.Partitions, st.Probes)
	return nil
}
