package core

import "context"

// The seam between the engine and the document layer.
//
// The document layer (documentindex*.go, catalog.go) changes the engine's
// open batch only through chunkEdits, and takes the engine's writer lock
// only through LocalIndex.locked and LocalIndex.edit; the engine calls up
// into the document layer only through commitParticipant (documentText
// included, in place of IndexOptions.DocReader). Besides these, the
// document layer reads the engine's published snapshot and file watch, and
// hands it the files a commit drops.

// chunkEdits is the open batch as the document layer sees it: the working
// set's items by position (the committed ones, then those the batch added;
// a deleted position stays, dead), and the two changes a document makes,
// adding a chunk item and deleting an item.
type chunkEdits interface {
	// positions is the number of positions, live or dead.
	positions() int32
	// itemAt returns the item at position p and whether it is live.
	itemAt(p int32) (id string, md Metadata, live bool)
	// lookup returns the position of the live item with id.
	lookup(id string) (int32, bool)
	// addChunk adds a new chunk item (its id unused), its keys in
	// reserved kept inline, and returns its position.
	addChunk(ctx context.Context, item IndexItem, reserved []string) (int32, error)
	// drop deletes the live item with id, if any.
	drop(id string)
}

// batchEdits is the engine's chunkEdits: the index and its open batch.
type batchEdits struct {
	ix *LocalIndex
	b  *batch
}

func (e batchEdits) positions() int32 { return int32(e.b.base.len() + len(e.b.added)) }

func (e batchEdits) itemAt(p int32) (string, Metadata, bool) {
	if e.b.gone(p) {
		return "", nil, false
	}
	it := e.b.at(p)
	return it.id, it.meta, true
}

func (e batchEdits) lookup(id string) (int32, bool) { return e.b.find(id) }

func (e batchEdits) addChunk(ctx context.Context, item IndexItem, reserved []string) (int32, error) {
	stored, err := e.ix.addItem(ctx, e.b, item, true, reserved)
	if err != nil {
		return 0, err
	}
	p, _ := e.b.find(stored.ID)
	return p, nil
}

func (e batchEdits) drop(id string) { e.b.remove(id) }

// locked runs fn with the writer lock held, as the document layer reads
// its pending catalog.
func (ix *LocalIndex) locked(ctx context.Context, fn func() error) error {
	if err := ix.mu.LockContext(ctx); err != nil {
		return err
	}
	defer ix.mu.Unlock()
	return fn()
}

// edit runs the changes, in order, in the open batch, or in a batch of its
// own that it commits, or cancels when a change or the commit fails; each
// change is an op of the batch (see batch.do), so a rebase on another
// process's commit runs it again, and a change must leave the batch as it
// found it when it fails. prepare runs first, under the writer lock.
func (ix *LocalIndex) edit(ctx context.Context, prepare func(ctx context.Context) error, changes ...func(e chunkEdits) error) error {
	if err := ix.mu.LockContext(ctx); err != nil {
		return err
	}
	defer ix.mu.Unlock()
	if err := prepare(ctx); err != nil {
		return err
	}
	b, err := ix.join()
	if err != nil {
		return err
	}
	own := false
	if b == nil {
		if b, err = ix.beginLocked(ctx); err != nil {
			return err
		}
		own = true
	}
	for _, change := range changes {
		if err = b.do(func(b *batch) error { return change(batchEdits{ix, b}) }); err != nil {
			break
		}
	}
	if err == nil && own {
		err = ix.commitLocked(ctx)
	}
	if err != nil && own {
		ix.cancelLocked(ctx)
	}
	return err
}
