package core

import (
	"context"
	"fmt"
	"time"

	"github.com/foliovec/folio/core/internal/share"
)

// Several processes on one folder.
//
// A commit rewrites the whole index file from the committing process's
// snapshot, so two processes that write one folder, each from its own
// snapshot, would each drop the other's changes. When the storage offers
// the optional capabilities FolderLocker and FileVersioner, a LocalIndex
// avoids that:
//
//   - every commit holds the folder's lock from its first write to its
//     last; if the index file (or a document index's catalog) changed on
//     disk since this process last read or wrote it, the commit first
//     reloads it and applies its own changes again on top of the new state
//     (rebase), item by item and document by document, the later writer
//     winning for an id or a URI;
//   - readers stat the watched files at most once per FreshnessInterval and
//     reload, under the folder's lock, when another process has committed.
//
// Without the capabilities nothing of this happens, as in Vectra: the
// index file is read once, and another process's commits are overwritten.

// DefaultFreshnessInterval is IndexOptions.FreshnessInterval when it is 0.
const DefaultFreshnessInterval = 250 * time.Millisecond

// lockFolder takes the index folder's lock, when the storage offers one.
func (ix *LocalIndex) lockFolder(ctx context.Context) (func(), error) {
	return share.Lock(ctx, ix.storage, ix.folder)
}

// refresh reloads the index when another process has committed to the
// folder, checking at most once per interval. Readers call it with no
// lock held. It never waits for a writer of this process: while one holds
// the writer lock, the reload is left to the next interval (the writer
// itself rebases before it commits, and publishes what it found).
func (ix *LocalIndex) refresh(ctx context.Context) error {
	if !ix.watch.Due() {
		return nil
	}
	changed, err := ix.watch.Changed(ctx)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		ix.log.Warn("core: check the index for changes by other processes", "folder", ix.folder, "err", err)
		return nil
	}
	if !changed {
		return nil
	}
	if !ix.mu.TryLock() {
		return nil
	}
	defer ix.mu.Unlock()
	unlock, err := ix.lockFolder(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if changed, err = ix.watch.Changed(ctx); err != nil || !changed {
		return err
	}
	_, err = ix.readLocked(ctx, true)
	return err
}

// rebaseLocked brings the open batch onto the newest commit before it is
// committed: when another process committed since this one last read the
// folder, the index (and catalog) are reloaded; when the batch started
// from an older snapshot than the newest, its changes are applied again,
// in order, on a new batch over the newest (an insert of an id that is
// there by now replaces it: the later writer wins). A failure to apply
// them cancels the batch. ix.mu and the folder lock are held.
func (ix *LocalIndex) rebaseLocked(ctx context.Context) error {
	old := ix.update
	changed, err := ix.watch.Changed(ctx)
	if err != nil {
		return fmt.Errorf("check the index for changes by other processes: %w", err)
	}
	if changed {
		if _, err := ix.readLocked(ctx, true); err != nil {
			return err
		}
	}
	s := ix.cur.Load()
	if s == nil || s == old.base {
		return nil
	}
	b := newBatch(s)
	b.replay = true
	ix.update = b
	if ix.part != nil {
		ix.part.onBegin()
	}
	// Side-car files an earlier, failed commit of the old batch wrote:
	// the new batch names its own. That commit may have landed, so the
	// newest state may name them: they are dropped, never deleted while
	// named.
	ix.unsure = append(ix.unsure, old.writtenSidecars()...)
	for _, op := range old.ops {
		if err := op(b); err != nil {
			ix.cancelLocked(ctx)
			return fmt.Errorf("apply the changes again on another process's commit: %w", err)
		}
	}
	b.ops = old.ops
	b.replay = false
	return nil
}

// vanishedRetries bounds how often a reader that found a file of its
// snapshot gone asks again on a newer state. With dropped files kept for
// IndexOptions.RetainDropped, one retry covers a reader whose snapshot was
// older than that; a second covers a commit landing during the first.
const vanishedRetries = 2

// newerState reports whether a newer state than the one a reader used is
// published, reading the index (and catalog) again at once when another
// process committed since, whatever FreshnessInterval says. A reader calls
// it when a file its state named has vanished; current tells whether the
// reader's state is still the published one.
func (ix *LocalIndex) newerState(ctx context.Context, current func() bool) bool {
	if !current() {
		return true
	}
	if err := ix.reloadIfChanged(ctx); err != nil {
		ix.log.Warn("core: read the index again after a file vanished", "folder", ix.folder, "err", err)
		return false
	}
	return !current()
}

// reloadIfChanged reads the index again when another process has
// committed since this one last read or wrote it. Unlike refresh it waits
// for the locks and ignores the interval (but not a negative one, which
// turns checks off).
func (ix *LocalIndex) reloadIfChanged(ctx context.Context) error {
	if !ix.watch.Checking() {
		return nil
	}
	if changed, err := ix.watch.Changed(ctx); err != nil || !changed {
		return err
	}
	if err := ix.mu.LockContext(ctx); err != nil {
		return err
	}
	defer ix.mu.Unlock()
	unlock, err := ix.lockFolder(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if changed, err := ix.watch.Changed(ctx); err != nil || !changed {
		return err
	}
	_, err = ix.readLocked(ctx, true)
	return err
}
