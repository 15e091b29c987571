package core

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/foliovec/folio/core/internal/scan"

	"github.com/foliovec/folio/core/internal/filter"
)

// batch is an open update: the changes made since BeginUpdate, kept as an
// overlay on the snapshot it started from, so opening a batch copies
// nothing. Positions below base.len() are the base's slots; added items
// follow. Deleted positions stay in place (as tombstones) until the commit
// compacts them. A batch is guarded by the index's writer lock.
type batch struct {
	base *snapshot
	// failed is the error of the EndUpdate that failed to commit the
	// batch, while it stays open (see EndUpdate).
	failed error
	// baseHead, when set, holds the base's rows that are only in their
	// files (fetch-only), read by readBase for a rebuild of the columns.
	baseHead []float32
	added    []pendingItem
	deleted  map[int32]bool   // deleted positions, base or added
	ids      map[string]int32 // id → position, overriding base.slots; -1 when deleted
	live     int              // items in the working set
	dim      int              // vector length of the working set; -1 when it is empty

	sidecars []FileWrite // side-car files to write at the commit, by name
	created  []string    // side-car files this batch wrote or will write; removed on cancel
	dropped  []string    // side-car files of items it removed or replaced; removed after commit

	// slab, when set, receives the vectors of added items one after
	// another, so that a batch filling an empty index commits them as the
	// arena without another copy (BatchInsertItems sizes it).
	slab []float32

	// ops are the changes made to the batch, in order, kept so that they
	// can be applied again on a newer commit of another process (see
	// rebaseLocked).
	ops []func(*batch) error
	// triedSidecars is set once a commit has tried to write the
	// side-car files.
	triedSidecars bool
	// triedSave is set once a commit has started writing: from then on a
	// failure may have left the storage naming the batch's files.
	triedSave bool
	// replay is set while ops are applied again: an insert of an id that
	// is there by now replaces the item instead of failing.
	replay bool
	// keepPlace keeps a replaced item of the base, which moves to the end
	// of the columns, in its place in storage order, as Vectra's file
	// layout does (see places.go): moves records base slot → the added
	// position holding its new content. On the segmented layout items are
	// stored in the order of their serials, and a replaced one is stored
	// anew.
	keepPlace bool
	moves     map[int32]int32
}

// pendingItem is an item written in a batch, owned by the batch.
type pendingItem struct {
	id    string
	meta  Metadata
	file  string
	vec   []float32
	norm  float64
	scale float64 // vecmath.FastScale(vec)
}

func newBatch(base *snapshot) *batch {
	b := &batch{
		base:    base,
		deleted: map[int32]bool{},
		ids:     map[string]int32{},
		live:    base.count(),
		dim:     base.Dim,
	}
	if base.Mixed {
		b.dim = len(base.Vecs[0])
	}
	return b
}

// do runs op on the batch and, when it succeeds, keeps it for a rebase.
// op must leave the batch as it found it when it fails, and must make the
// same change when run again on another base: ids and other random names
// are chosen before, not inside it.
func (b *batch) do(op func(*batch) error) error {
	if err := op(b); err != nil {
		return err
	}
	b.ops = append(b.ops, op)
	return nil
}

// writtenSidecars are the side-car files of the batch that a commit may
// have written: all it created, once a commit has tried to write them.
func (b *batch) writtenSidecars() []string {
	if !b.triedSidecars {
		return nil
	}
	return b.created
}

// find returns the position of the first live item with id.
func (b *batch) find(id string) (int32, bool) {
	if p, ok := b.ids[id]; ok {
		return p, p >= 0
	}
	p, ok := b.base.slotMap().Lookup(id)
	return p, ok
}

// gone reports whether position p holds no live item: deleted by the
// batch, or a dead slot of the base.
func (b *batch) gone(p int32) bool {
	return b.deleted[p] || (p < int32(b.base.len()) && b.base.isDead(int(p)))
}

// at returns the item at a live position.
func (b *batch) at(p int32) pendingItem {
	n := int32(b.base.len())
	if p >= n {
		return b.added[p-n]
	}
	s := b.base
	vec := s.Vector(int(p))
	if vec == nil && b.baseHead != nil {
		d := s.Dim
		vec = b.baseHead[int(p)*d : (int(p)+1)*d : (int(p)+1)*d]
	}
	return pendingItem{id: s.ids[p], meta: s.meta[p], file: s.files.at(int(p)), vec: vec, norm: s.norms[p], scale: s.Scale[p]}
}

// readBase reads the base's rows that are only in their files into
// memory when the batch rebuilds the columns, which copies every row (a
// batch that keeps the base's rows reads none).
func (b *batch) readBase(ctx context.Context) error {
	s := b.base
	if b.baseHead != nil || b.keepsBaseRows() {
		return nil
	}
	// The rebuild copies the rows read in place: those of segments whose
	// vectors were not checked are checked first.
	if err := s.verifyHead(ctx, 0, s.HeadRows()); err != nil {
		return err
	}
	if !s.FetchOnly() {
		return nil
	}
	d := s.Dim
	vals := make([]float32, s.HeadRows()*d)
	if err := s.Each(ctx, 0, s.HeadRows(), func(first int, v []float32) { copy(vals[first*d:], v) }); err != nil {
		return err
	}
	b.baseHead = vals
	return nil
}

// put adds it, or replaces the item at pos when replace is set. The caller
// has validated it.
func (b *batch) put(it pendingItem, pos int32, replace bool) {
	if replace && pos < int32(b.base.len()) {
		// A replaced item of the base moves to the end, as a delete and an
		// insert, so that the commit keeps the base's rows instead of
		// copying every column.
		if old := b.at(pos); old.file != "" {
			b.dropped = append(b.dropped, old.file)
		}
		b.deleted[pos] = true
		b.live--
		replace = false
		if b.keepPlace {
			if b.moves == nil {
				b.moves = map[int32]int32{}
			}
			b.moves[pos] = int32(b.base.len() + len(b.added))
		}
	}
	if replace {
		if old := b.at(pos); old.file != "" {
			b.dropped = append(b.dropped, old.file)
		}
		b.added[pos-int32(b.base.len())] = it
		if b.live == 1 {
			b.dim = len(it.vec)
		}
		return
	}
	b.ids[it.id] = int32(b.base.len() + len(b.added))
	b.added = append(b.added, it)
	b.live++
	if b.live == 1 {
		b.dim = len(it.vec)
	}
}

// remove deletes the first live item with id and reports whether there was
// one.
func (b *batch) remove(id string) bool {
	pos, ok := b.find(id)
	if !ok {
		return false
	}
	if it := b.at(pos); it.file != "" {
		b.dropped = append(b.dropped, it.file)
	}
	b.deleted[pos] = true
	b.live--
	if b.live == 0 {
		b.dim = -1
	}
	b.ids[id] = b.nextWithID(id, pos)
	return true
}

// removeAt deletes the live item at position pos.
func (b *batch) removeAt(pos int32) {
	it := b.at(pos)
	b.deleted[pos] = true
	b.live--
	if b.live == 0 {
		b.dim = -1
	}
	if p, ok := b.find(it.id); !ok || p == pos {
		b.ids[it.id] = b.nextWithID(it.id, pos)
	}
}

// nextWithID returns the first live position after pos holding id, or -1.
// Only an index file written by another tool can hold an id twice.
func (b *batch) nextWithID(id string, pos int32) int32 {
	if !b.base.dupIDs() {
		return -1
	}
	n := int32(b.base.len())
	for p := pos + 1; p < n+int32(len(b.added)); p++ {
		if !b.gone(p) && b.at(p).id == id {
			return p
		}
	}
	return -1
}

// apply builds the snapshot the batch commits to. base is not modified,
// except that an append-only batch writes into the spare capacity of the
// base's columns, which no reader of base looks at.
func (b *batch) apply() *snapshot {
	if b.keepsBaseRows() {
		return b.applyAppend()
	}
	return b.applyRebuild()
}

// appendOnly reports whether the batch only adds items: its snapshot is
// base with rows appended.
func (b *batch) appendOnly() bool { return len(b.deleted) == 0 }

// keepsBaseRows reports whether the batch's snapshot is base with rows
// appended and, when it deletes or replaces items, their slots marked
// dead: the dead slots stay few enough (maxDead) for queries to skip them
// cheaply, and the vectors are of one length. Otherwise every column is
// rebuilt without the dead.
func (b *batch) keepsBaseRows() bool {
	if b.appendOnly() {
		return true
	}
	if b.base.Mixed {
		return false
	}
	n := int32(b.base.len())
	dead := b.base.ndead
	for p := range b.deleted {
		if p < n {
			dead++
		}
	}
	return dead <= maxDead(b.base.len()+len(b.added))
}

// applyAppend commits a batch that keeps the base's rows (keepsBaseRows):
// its live added items are appended, and the base slots it deleted are
// marked dead.
func (b *batch) applyAppend() *snapshot {
	base := b.base
	if len(b.added) == 0 && len(b.deleted) == 0 {
		return base
	}
	n := base.len()
	s := &snapshot{
		version:    base.version,
		config:     base.config,
		ids:        base.ids,
		meta:       base.meta,
		files:      base.files,
		norms:      base.norms,
		Rows:       scan.Rows{Scale: base.Scale, Mixed: base.Mixed, Dim: base.Dim, Head: base.Head, Pin: base.Pin, Gen: base.Gen},
		serials:    base.serials,
		nextSerial: base.nextSerial,
		dead:       base.dead,
		ndead:      base.ndead,
		moved:      base.moved,
		placeOf:    base.placeOf,
	}
	added := b.added
	adds := b.ids
	if len(b.deleted) > 0 {
		var slot []int32
		added, adds, slot = b.liveAdded()
		s.markDead(b.deleted, n)
		s.moved, s.placeOf = b.keptMoves(slot)
	}
	for _, it := range added {
		s.ids = append(s.ids, it.id)
		s.meta = append(s.meta, it.meta)
		s.files = s.files.with(len(s.ids)-1, it.file)
		s.norms = append(s.norms, it.norm)
		s.Scale = append(s.Scale, it.scale)
		s.serials = append(s.serials, s.nextSerial)
		s.nextSerial++
	}
	// The batch's overlay maps the ids it added to their slots, and those
	// it deleted to -1: it becomes the new layer (the batch is done with
	// it).
	s.idMap = readyIDs(base.slotMap().With(adds), base.dupIDs())
	switch {
	case len(added) == 0:
		s.Arena, s.Vecs = base.Arena, base.Vecs
	case base.Mixed:
		s.Vecs = slices.Clone(base.Vecs) // headers only; a mixed index is rare and small
		for _, it := range added {
			s.Vecs = append(s.Vecs, it.vec)
		}
	default:
		d := len(added[0].vec)
		s.Dim = d
		if d == 0 {
			break
		}
		if arena, ok := b.slabArena(d); ok && n == 0 && len(b.deleted) == 0 {
			s.Arena = arena
			break
		}
		s.Arena = slices.Grow(base.Arena[:(n-base.HeadRows())*d], len(added)*d)
		for _, it := range added {
			s.Arena = append(s.Arena, it.vec...)
		}
	}
	s.postings = filter.WithAppended(base.postings, s.meta, n)
	return s
}

// liveAdded returns the added items the batch did not delete again, and
// its id overlay with their positions renumbered to match.
func (b *batch) liveAdded() ([]pendingItem, map[string]int32, []int32) {
	n := int32(b.base.len())
	slot := make([]int32, len(b.added))
	var live []pendingItem
	for j, it := range b.added {
		slot[j] = -1
		if !b.deleted[n+int32(j)] {
			slot[j] = n + int32(len(live))
			live = append(live, it)
		}
	}
	ids := make(map[string]int32, len(b.ids))
	for id, p := range b.ids {
		if p >= n {
			p = slot[p-n]
		}
		ids[id] = p
	}
	return live, ids, slot
}

// applyKeeping is apply with the deletions at the positions in keep undone:
// the snapshot written before the catalog when documents are replaced, so
// that the index file holds both versions' chunks. It is only serialised,
// never published.
func (b *batch) applyKeeping(keep map[int32]bool) *snapshot {
	c := *b
	c.deleted = make(map[int32]bool, len(b.deleted))
	for p := range b.deleted {
		if !keep[p] {
			c.deleted[p] = true
		}
	}
	c.live += len(b.deleted) - len(c.deleted)
	return c.apply()
}

// slabArena returns the slab when it holds exactly the added vectors, of
// length d, in order.
func (b *batch) slabArena(d int) ([]float32, bool) {
	if len(b.slab) != len(b.added)*d {
		return nil, false
	}
	for i, it := range b.added {
		if len(it.vec) != d || &it.vec[0] != &b.slab[i*d] {
			return nil, false
		}
	}
	return b.slab, true
}

// ownVector copies v into memory owned by the batch: the slab while it has
// room, else a new slice. The copy's capacity ends with it.
func (b *batch) ownVector(v []float32) []float32 {
	if len(v) > 0 && cap(b.slab)-len(b.slab) >= len(v) {
		start := len(b.slab)
		b.slab = append(b.slab, v...)
		return b.slab[start:len(b.slab):len(b.slab)]
	}
	if len(v) == 0 {
		return []float32{}
	}
	return slices.Clone(v)
}

// applyRebuild commits a batch whose dead slots would be too many (or
// whose vectors are of mixed lengths): every column is rebuilt, compacted,
// in storage order (a moved item back in its place).
func (b *batch) applyRebuild() *snapshot {
	base := b.base
	n := int32(base.len())
	s := &snapshot{
		version: base.version,
		config:  base.config,
		ids:     make([]string, 0, b.live),
		meta:    make([]Metadata, 0, b.live),
		norms:   make([]float64, 0, b.live),
		// Pin: a mixed result keeps views of the base's rows, Head's too
		// (dropped below when the rows are copied).
		Rows:       scan.Rows{Scale: make([]float64, 0, b.live), Dim: -1, Pin: base.Pin, Gen: new(scan.Lineage)},
		serials:    make([]uint32, 0, b.live),
		nextSerial: base.nextSerial,
	}
	vecs := make([][]float32, 0, b.live)
	for _, pl := range b.storageOrder() {
		// A moved item takes its place's serial: storage order is serial
		// order.
		p, it := pl.place, b.at(pl.slot)
		s.Scale = append(s.Scale, it.scale)
		s.ids = append(s.ids, it.id)
		s.meta = append(s.meta, it.meta)
		s.files = s.files.with(len(s.ids)-1, it.file)
		s.norms = append(s.norms, it.norm)
		vecs = append(vecs, it.vec)
		if p < n {
			s.serials = append(s.serials, base.serials[p])
		} else {
			s.serials = append(s.serials, s.nextSerial)
			s.nextSerial++
		}
	}
	s.idMap = s.lazyIDs(len(s.ids), s.ndead)
	items := make([]IndexItem, len(vecs))
	for i, v := range vecs {
		items[i].Vector = v
	}
	// When the result is mixed, setVectors keeps the batch's slices, some
	// of them views of the base arena: both are immutable, so sharing is
	// safe.
	s.setVectors(items, nil, false)
	if !s.Mixed {
		s.Pin = nil // every row copied into the new arena
	}
	s.postings = filter.BuildPostings(s.config.Indexed, s.meta)
	return s
}

// BeginUpdate opens a batch. Until EndUpdate, writes collect in the batch
// and readers keep seeing the last commit. A batch already open is
// ErrUpdateInProgress. The index is loaded if it is not yet.
func (ix *LocalIndex) BeginUpdate(ctx context.Context) error {
	if err := ix.mu.LockContext(ctx); err != nil {
		return err
	}
	defer ix.mu.Unlock()
	if _, err := ix.beginLocked(ctx); err != nil {
		return WrapOp(ctx, "begin update", ix.folder, err)
	}
	return nil
}

func (ix *LocalIndex) beginLocked(ctx context.Context) (*batch, error) {
	if ix.update != nil {
		_, err := ix.join()
		if err == nil {
			err = ErrUpdateInProgress
		}
		return nil, err
	}
	s, err := ix.loadLocked(ctx)
	if err != nil {
		return nil, err
	}
	ix.update = newBatch(s)
	ix.update.keepPlace = ix.lay.keepsPlaces()
	if ix.part != nil {
		ix.part.onBegin()
	}
	return ix.update, nil
}

// EndUpdate commits the open batch: it writes the whole index file, then
// publishes the new state to readers, then removes the side-car files of
// the items the batch deleted or replaced (never before the new index file
// is written, so a crash leaves no dangling reference). No open batch is
// ErrNoUpdate. When writing fails the batch stays open, as in Vectra: call
// EndUpdate again or CancelUpdate.
//
// Fix over Vectra: until then, writes that would join that batch (every
// write between BeginUpdate and EndUpdate does) fail with an error
// wrapping ErrUpdateInProgress that names EndUpdate's failure, instead of
// being accepted into a batch that may never be committed.
func (ix *LocalIndex) EndUpdate(ctx context.Context) error {
	if err := ix.mu.LockContext(ctx); err != nil {
		return err
	}
	defer ix.mu.Unlock()
	if ix.update == nil {
		return WrapOp(ctx, "end update", ix.folder, ErrNoUpdate)
	}
	if err := ix.commitLocked(ctx); err != nil {
		if ix.update != nil {
			ix.update.failed = err
		}
		return WrapOp(ctx, "end update", ix.folder, err)
	}
	return nil
}

// join returns the open batch for a write to join, nil when none is open,
// or the error of a batch whose EndUpdate failed (see EndUpdate). ix.mu is
// held.
func (ix *LocalIndex) join() (*batch, error) {
	b := ix.update
	if b != nil && b.failed != nil {
		return nil, fmt.Errorf("the open batch failed to commit (%v): call EndUpdate again or CancelUpdate: %w", b.failed, ErrUpdateInProgress)
	}
	return b, nil
}

// commitLocked commits the open batch. It holds the folder's lock, when
// the storage has one, from before it looks at the folder to after its
// last write, and rebases the batch first (see rebaseLocked).
func (ix *LocalIndex) commitLocked(ctx context.Context) (err error) {
	start := time.Now()
	defer func() {
		m := &ix.metrics
		count(1, start, err, &m.commits, &m.commitErrors, &m.commitNanos)
		if s := ix.cur.Load(); s != nil && err == nil {
			ix.log.Debug("committed", "folder", ix.folder, "items", s.count(), "took", time.Since(start))
		} else if err != nil {
			ix.log.Debug("commit failed", "folder", ix.folder, "took", time.Since(start), "err", err)
		}
	}()
	unlock, err := ix.lockFolder(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if err := ix.rebaseLocked(ctx); err != nil {
		return err
	}
	b := ix.update
	if err := b.readBase(ctx); err != nil {
		return err
	}
	s := b.apply()
	if ix.rerank > 0 {
		var from *snapshot
		if b.keepsBaseRows() {
			from = b.base
		}
		c, err := ix.codesFor(ctx, s, from.quantCodes(), ix.lay)
		if err != nil {
			return err
		}
		s.quant.Store(c)
	}
	ix.keywords.updateBM25(ctx, b, s)
	if err := ix.sides.write(ctx, b); err != nil {
		return err
	}
	// From here on a failure may have landed: the index file on disk may
	// name the side-cars just written.
	b.triedSave = true
	if ix.part != nil {
		saveBoth := func(keep map[int32]bool) error { return ix.save(ctx, b.applyKeeping(keep)) }
		if err := ix.part.onBeforeSave(ctx, saveBoth); err != nil {
			return err
		}
	}
	if err := ix.save(ctx, s); err != nil {
		if ix.part == nil || !ix.part.commitDecided() {
			return err
		}
		ix.log.Warn("save index after its change was decided: the file keeps chunks the next commit drops", "folder", ix.folder, "err", err)
	}
	var documents []string
	if ix.part != nil {
		var err error
		if documents, err = ix.part.onAfterSave(ctx); err != nil {
			return err
		}
	}
	ix.cur.Store(s)
	ix.update = nil
	ix.savePartitions(ctx, s)
	// Files the new state no longer names are dropped, not deleted:
	// readers on the previous state may still read them.
	dropped := slices.Concat(unreferenced(b.dropped, s), ix.graves.dropping, documents)
	ix.graves.dropping = nil
	ix.dropLocked(ctx, dropped)
	return nil
}

// CancelUpdate discards the open batch and removes the side-car files it
// wrote, so a cancelled batch leaves nothing behind (a fix over Vectra). It
// is a no-op with no batch open. It removes files with a background
// context; failures are logged.
func (ix *LocalIndex) CancelUpdate() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.cancelLocked(context.Background())
}

func (ix *LocalIndex) cancelLocked(ctx context.Context) {
	b := ix.update
	if b == nil {
		return
	}
	ix.update = nil
	ix.graves.dropping = nil
	if ix.part != nil {
		ix.part.onCancel()
	}
	if !b.triedSave {
		ix.sides.remove(context.WithoutCancel(ctx), b.created)
		return
	}
	// A failed commit's writes may have landed (an error after the request
	// reached the storage): the index file on disk may name the batch's
	// side-cars, so none is deleted. The next commit drops them, and
	// deletes them only if the newest state does not name them; until
	// then the index is read again from the storage, to learn which
	// state landed.
	ix.graves.unsure = append(ix.graves.unsure, b.created...)
	ix.watch.SetUnknown()
}

// unreferenced returns the names of files no item of s refers to.
func unreferenced(files []string, s *snapshot) []string {
	if len(files) == 0 {
		return nil
	}
	drop := make(map[string]bool, len(files))
	for _, f := range files {
		drop[f] = true
	}
	for i, f := range s.files {
		if f != "" && drop[f] && !s.isDead(i) {
			drop[f] = false
		}
	}
	var out []string
	for _, f := range files {
		if drop[f] {
			out = append(out, f)
			drop[f] = false
		}
	}
	return out
}
