package core

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/foliovec/folio/core/internal/meta"

	"github.com/foliovec/folio/core/internal/uuid"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// write runs change in the open batch, or, with none open, in a batch of its
// own that it commits (durable when write returns) or, when change or the
// commit fails, cancels: a failed single write leaves no batch open (a fix
// over Vectra). change reports whether it changed anything; a single write
// that changed nothing writes nothing.
func (ix *LocalIndex) write(ctx context.Context, change func(b *batch) (bool, error)) error {
	if err := ix.mu.LockContext(ctx); err != nil {
		return err
	}
	defer ix.mu.Unlock()
	var changed bool
	op := func(b *batch) error {
		var err error
		changed, err = change(b)
		return err
	}
	if b, err := ix.join(); err != nil || b != nil {
		if err != nil {
			return err
		}
		return b.do(op)
	}
	b, err := ix.beginLocked(ctx)
	if err != nil {
		return err
	}
	err = b.do(op)
	if err == nil && changed {
		err = ix.commitLocked(ctx)
	}
	if ix.update != nil {
		ix.cancelLocked(ctx)
	}
	return err
}

// InsertItem adds an item. An empty ID gets a new uuid v4. An ID already
// present is ErrItemExists. See UpsertItem for the rules on vectors and
// metadata.
func (ix *LocalIndex) InsertItem(ctx context.Context, item IndexItem) (IndexItem, error) {
	return ix.putItem(ctx, "insert item", item, true)
}

// UpsertItem adds an item or replaces the one with the same ID, keeping its
// position. An empty ID gets a new uuid v4.
//
// The vector is copied and stored as given (not normalised); its norm is
// computed. A nil vector, or one holding NaN or ±Inf, is ErrInvalidArgument
// (an empty vector is allowed, with norm 0). When the index holds other
// items, a vector of another length is ErrDimensionMismatch.
//
// Metadata values must be strings, booleans or numbers (any Go number, kept
// as float64; NaN and ±Inf are refused); anything else is
// ErrInvalidArgument. When the index has indexed keys
// (MetadataConfig.Indexed), the item keeps only those inline; if it has any
// other key, its full metadata goes to a new side-car file
// "<uuid><ext>" in the folder, named in MetadataFile. Replacing an item
// drops its old side-car file once the change is committed.
//
// The returned item shares memory with the index: do not modify it.
func (ix *LocalIndex) UpsertItem(ctx context.Context, item IndexItem) (IndexItem, error) {
	return ix.putItem(ctx, "upsert item", item, false)
}

func (ix *LocalIndex) putItem(ctx context.Context, op string, item IndexItem, unique bool) (IndexItem, error) {
	given := item.ID
	if item.ID == "" {
		item.ID = uuid.New()
	}
	var out IndexItem
	err := ix.write(ctx, func(b *batch) (bool, error) {
		var err error
		out, err = ix.addItem(ctx, b, item, unique, nil)
		return err == nil, err
	})
	switch {
	case err == nil:
		return out, nil
	case given == "":
		// The generated id means nothing to the caller: name none.
		return IndexItem{}, WrapOp(ctx, op+" (new id)", "", err)
	}
	return IndexItem{}, WrapOp(ctx, op, given, err)
}

// BatchInsertItems inserts every item in one batch of its own, all or
// nothing: an error (an id already present, also twice in items; an
// invalid vector or metadata) cancels the batch, removing the side-car
// files it wrote. A batch already open is ErrUpdateInProgress. The items
// are returned as stored, in order.
func (ix *LocalIndex) BatchInsertItems(ctx context.Context, items []IndexItem) ([]IndexItem, error) {
	const op = "batch insert items"
	if err := ix.mu.LockContext(ctx); err != nil {
		return nil, err
	}
	defer ix.mu.Unlock()
	b, err := ix.beginLocked(ctx)
	if err != nil {
		return nil, WrapOp(ctx, op, ix.folder, err)
	}
	if b.base.len() == 0 && len(items) > 0 {
		// Filling an empty index: the vectors go into one slab that the
		// commit adopts as the arena.
		b.slab = make([]float32, 0, len(items)*len(items[0].Vector))
		b.ids = make(map[string]int32, len(items))
	}
	// Ids are chosen once, so that applying the items again on another
	// process's commit (a rebase) inserts the same ones.
	given := make([]bool, len(items))
	items = slices.Clone(items)
	for i := range items {
		if items[i].ID == "" {
			items[i].ID = uuid.New()
		} else {
			given[i] = true
		}
	}
	out := make([]IndexItem, len(items))
	insert := func(b *batch) error {
		for i, item := range items {
			if i%1024 == 1023 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			var err error
			if out[i], err = ix.addItem(ctx, b, item, true, nil); err != nil {
				if !given[i] {
					return WrapOp(ctx, fmt.Sprintf("%s: item %d (new id)", op, i), "", err)
				}
				return WrapOp(ctx, fmt.Sprintf("%s: item %d", op, i), item.ID, err)
			}
		}
		return nil
	}
	if err := b.do(insert); err != nil {
		ix.cancelLocked(ctx)
		return nil, err
	}
	if err := ix.commitLocked(ctx); err != nil {
		ix.cancelLocked(ctx)
		return nil, WrapOp(ctx, op, ix.folder, err)
	}
	return out, nil
}

// DeleteItem removes the item with id; an unknown id is not an error.
// Its side-car file is removed once the change is committed.
func (ix *LocalIndex) DeleteItem(ctx context.Context, id string) error {
	err := ix.write(ctx, func(b *batch) (bool, error) { return b.remove(id), nil })
	if err != nil {
		return WrapOp(ctx, "delete item", id, err)
	}
	return nil
}

// DeleteItems removes every item whose id is in ids, in one commit; unknown
// ids are ignored and no ids writes nothing.
func (ix *LocalIndex) DeleteItems(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	err := ix.write(ctx, func(b *batch) (bool, error) {
		changed := false
		for _, id := range ids {
			for b.remove(id) {
				changed = true
			}
		}
		return changed, nil
	})
	if err != nil {
		return WrapOp(ctx, "delete items", ix.folder, err)
	}
	return nil
}

// addItem validates item and puts it in b. item.ID is set. The metadata
// keys in keep stay inline whether or not they are indexed.
func (ix *LocalIndex) addItem(ctx context.Context, b *batch, item IndexItem, unique bool, keep []string) (IndexItem, error) {
	if item.Vector == nil {
		return IndexItem{}, fmt.Errorf("vector is required: %w", ErrInvalidArgument)
	}
	for i, x := range item.Vector {
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return IndexItem{}, fmt.Errorf("vector[%d] is %v: %w", i, f, ErrInvalidArgument)
		}
	}
	pos, exists := b.find(item.ID)
	if unique && exists && !b.replay {
		return IndexItem{}, ErrItemExists
	}
	if d := len(item.Vector); b.live > 0 && d != b.dim && !(exists && b.live == 1) {
		return IndexItem{}, fmt.Errorf("vector has %d dimensions, index has %d: %w", d, b.dim, ErrDimensionMismatch)
	}
	inline, full, err := meta.Split(b.base.config.Indexed, keep, item.Metadata)
	if err != nil {
		return IndexItem{}, err
	}
	var file string
	if full != nil {
		var raw []byte
		if file, raw, err = ix.sides.new(full); err != nil {
			return IndexItem{}, err
		}
		b.sidecars = append(b.sidecars, FileWrite{Path: file, Content: raw})
		b.created = append(b.created, file)
	}
	vec := b.ownVector(item.Vector)
	it := pendingItem{id: item.ID, meta: inline, file: file, vec: vec, norm: vecmath.Length(vec), scale: vecmath.FastScale(vec)}
	b.put(it, pos, exists)
	return IndexItem{ID: it.id, Metadata: it.meta, Vector: it.vec, Norm: it.norm, MetadataFile: it.file}, nil
}
