package core

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/foliovec/folio/core/internal/meta"
)

// BulkLoad fills an empty index on the segmented layout with src's items,
// written into one segment file as they come, without holding their
// vectors: what a large index needs to be built on a machine that could
// not hold it (10M×384 is 15 GB of vectors). An index that keeps 4-bit
// codes (IndexOptions.ScanCodes CodesInt4) writes them into the segment
// too, so that opening it reads its codes and not its vectors.
//
// src.Item is called several times for each item, from one goroutine at
// a time, in no set order, and must return the same item each time: once
// to check every item first (ids present and distinct, vectors of one
// length with finite values, metadata kept inline), then for the vectors,
// the codes, and the ids and metadata. An item that fails the check
// leaves the index as it was, with an error that names it. src's Version
// and MetadataConfig are not used: the index keeps its own. No items is
// no change.
//
// The index must exist, be on the segmented layout, hold no item and not
// be a document index's; else BulkLoad returns ErrInvalidArgument
// (ErrUpdateInProgress while a batch is open). It returns the number of
// items loaded; the index is then read back from the files, as an open
// reads it.
func (ix *LocalIndex) BulkLoad(ctx context.Context, src IndexSource) (int, error) {
	const op = "bulk load"
	if err := ix.mu.LockContext(ctx); err != nil {
		return 0, err
	}
	defer ix.mu.Unlock()
	unlock, err := ix.lockFolder(ctx)
	if err != nil {
		return 0, WrapOp(ctx, op, ix.folder, err)
	}
	defer unlock()
	if ix.update != nil {
		return 0, WrapOp(ctx, op, ix.folder, ErrUpdateInProgress)
	}
	// The newest commit, another process's too.
	changed, err := ix.watch.Changed(ctx)
	if err == nil && changed {
		_, err = ix.readLocked(ctx, true)
	}
	if err != nil {
		return 0, WrapOp(ctx, op, ix.folder, err)
	}
	s, err := ix.loadLocked(ctx)
	if err != nil {
		return 0, WrapOp(ctx, op, ix.folder, err)
	}
	if ix.part != nil {
		return 0, WrapOp(ctx, op, ix.folder, fmt.Errorf("a document index's items are its documents' chunks: %w", ErrInvalidArgument))
	}
	if s.count() > 0 {
		return 0, WrapOp(ctx, op, ix.folder, fmt.Errorf("the index holds items: %w", ErrInvalidArgument))
	}
	if err := ix.lay.bulkLoad(ctx, s, src); err != nil || src.Len == 0 {
		return 0, WrapOp(ctx, op, ix.folder, err)
	}
	ix.cur.Store(nil)
	if _, err := ix.readLocked(ctx, true); err != nil {
		return src.Len, WrapOp(ctx, op, ix.folder, err)
	}
	return src.Len, nil
}

// checkBulk checks every item of src for BulkLoad and returns their
// vectors' length.
func checkBulk(ctx context.Context, src IndexSource, indexed []string) (int, error) {
	if src.Len < 0 || src.Len > math.MaxUint32 {
		return 0, fmt.Errorf("%d items: %w", src.Len, ErrInvalidArgument)
	}
	ids := make([]string, src.Len)
	dim := 0
	for i := range src.Len {
		if i%4096 == 4095 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		it := src.Item(i)
		bad := func(format string, args ...any) error {
			return fmt.Errorf("item %d (%q): %s: %w", i, it.ID, fmt.Sprintf(format, args...), ErrInvalidArgument)
		}
		switch {
		case it.ID == "":
			return 0, bad("no id")
		case len(it.Vector) == 0:
			return 0, bad("no vector")
		case i > 0 && len(it.Vector) != dim:
			return 0, fmt.Errorf("item %d (%q): vector has %d dimensions, the first has %d: %w", i, it.ID, len(it.Vector), dim, ErrDimensionMismatch)
		}
		dim = len(it.Vector)
		for j, x := range it.Vector {
			if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
				return 0, bad("vector[%d] is %v", j, f)
			}
		}
		if _, full, err := meta.Split(indexed, nil, it.Metadata); err != nil {
			return 0, bad("%v", err)
		} else if full != nil {
			return 0, bad("metadata keys beyond the indexed ones need a side-car file, which BulkLoad does not write")
		}
		ids[i] = it.ID
	}
	order := make([]int32, len(ids))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(ids[a], ids[b]) })
	for k := 1; k < len(order); k++ {
		if a, b := order[k-1], order[k]; ids[a] == ids[b] {
			return 0, fmt.Errorf("items %d and %d: id %q twice: %w", min(a, b), max(a, b), ids[a], ErrItemExists)
		}
	}
	return dim, nil
}
