package core

import (
	"context"
	"fmt"
	"slices"

	"github.com/foliovec/folio/core/internal/scan"

	"github.com/foliovec/folio/core/internal/filter"
)

// GetItem returns the committed item with id (the first, should a file
// written by another tool hold the id twice), with its inline metadata
// only. ok is false when there is none.
func (ix *LocalIndex) GetItem(ctx context.Context, id string) (item IndexItem, ok bool, err error) {
	s, err := ix.snapshot(ctx, "get item")
	if err != nil {
		return IndexItem{}, false, err
	}
	slot, ok := s.slotMap().Lookup(id)
	if !ok {
		return IndexItem{}, false, nil
	}
	it, err := s.item(ctx, int(slot))
	if err != nil {
		return IndexItem{}, false, WrapOp(ctx, "get item", ix.folder, err)
	}
	return it, true, nil
}

// ListItems returns every committed item in storage order, with inline
// metadata only.
func (ix *LocalIndex) ListItems(ctx context.Context) ([]IndexItem, error) {
	s, err := ix.snapshot(ctx, "list items")
	if err != nil {
		return nil, err
	}
	order := s.storageOrder()
	out := make([]IndexItem, len(order))
	for i, slot := range order {
		if out[i], err = s.item(ctx, int(slot)); err != nil {
			return nil, WrapOp(ctx, "list items", ix.folder, err)
		}
	}
	return out, nil
}

// ListItemsByMetadata returns the committed items whose inline metadata
// matches filter, in storage order. Only inline metadata is seen: with
// indexed keys configured, a filter on another key matches nothing, as in
// Vectra; such a filter is logged as a warning, or refused with
// ErrInvalidFilter when IndexOptions.StrictFilters is set. An invalid
// filter is ErrInvalidFilter.
func (ix *LocalIndex) ListItemsByMetadata(ctx context.Context, f Filter) ([]IndexItem, error) {
	s, err := ix.snapshot(ctx, "list items by metadata")
	if err != nil {
		return nil, err
	}
	sel, err := ix.selection(s, f)
	if err != nil {
		return nil, WrapOp(ctx, "list items by metadata", "", err)
	}
	var slots []int32
	sel.Each(func(slot int32) {
		if !s.isDead(int(slot)) {
			slots = append(slots, slot)
		}
	})
	out := make([]IndexItem, 0, len(slots))
	for _, slot := range s.inStorageOrder(slots) {
		it, err := s.item(ctx, int(slot))
		if err != nil {
			return nil, WrapOp(ctx, "list items by metadata", ix.folder, err)
		}
		out = append(out, it)
	}
	return out, nil
}

// selection is the set of slots a filter selects in a snapshot
// (scan.Selection over the snapshot's inline metadata).
type selection = scan.Selection[Metadata]

// planSelection returns the slots filter f selects in s, and its plan.
func planSelection(s *snapshot, f Filter) (selection, filter.Plan, error) {
	if len(f) == 0 {
		return selection{Meta: s.meta, All: true}, filter.Plan{}, nil
	}
	match, plan, err := filter.Compile(f)
	if err != nil {
		return selection{}, filter.Plan{}, err
	}
	sel := selection{Meta: s.meta, Match: match, None: plan.None()}
	if !sel.None {
		if cands, ok := s.postings.Candidates(plan); ok {
			sel.Cands = cands
			sel.None = len(cands) == 0
			sel.Exact = plan.Exact()
		}
	}
	return sel, plan, nil
}

// selection is planSelection for a query of ix: a filter on keys that are
// not stored inline is logged, or refused with IndexOptions.StrictFilters.
func (ix *LocalIndex) selection(s *snapshot, f Filter) (selection, error) {
	sel, plan, err := planSelection(s, f)
	if err != nil {
		return selection{}, err
	}
	if len(s.config.Indexed) == 0 {
		return sel, nil // every key is inline
	}
	var missing []string
	for _, f := range plan.Fields() {
		if !slices.Contains(s.config.Indexed, f) && !slices.Contains(ix.inlineKeys, f) {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return sel, nil
	}
	if ix.strictFilters {
		return selection{}, fmt.Errorf("filter on %q, not indexed (MetadataConfig.Indexed is %q): it would match nothing: %w", missing, s.config.Indexed, ErrInvalidFilter)
	}
	ix.log.Warn("a filter on keys that are not indexed matches nothing", "folder", ix.folder, "keys", missing, "indexed", s.config.Indexed)
	return sel, nil
}
