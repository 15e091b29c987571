package core

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
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
// It is taken once per LocalIndex: a call while this index already holds
// it (first reads under Vacuum's or a conversion's lock collect dropped
// files under it too) returns at once. ix.mu is held.
func (ix *LocalIndex) lockFolder(ctx context.Context) (func(), error) {
	if ix.folderLocked {
		return func() {}, nil
	}
	unlock, err := share.Lock(ctx, ix.storage, ix.folder)
	if err != nil {
		return nil, err
	}
	ix.folderLocked = true
	return func() {
		ix.folderLocked = false
		unlock()
	}, nil
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
		ix.log.Warn("check the index for changes by other processes", "folder", ix.folder, "err", err)
		return nil
	}
	if !changed {
		return nil
	}
	return ix.reload(ctx, false)
}

// reload reads the index again, once a check found that another process
// has committed since this one last read or wrote it, under the writer
// lock and the folder's lock, if the change is still there then: waiting
// for the writer lock, or, unless wait, giving up when a writer holds it.
func (ix *LocalIndex) reload(ctx context.Context, wait bool) error {
	if !wait && !ix.mu.TryLock() {
		return nil
	}
	if wait {
		if err := ix.mu.LockContext(ctx); err != nil {
			return err
		}
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
	ix.metrics.reloads.Add(1)
	start := time.Now()
	_, err = ix.readLocked(ctx, true)
	if s := ix.cur.Load(); err == nil && s != nil {
		ix.log.Info("loaded what another process committed", "folder", ix.folder, "items", s.count(), "took", time.Since(start))
	}
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
	b.keepPlace = ix.lay.keepsPlaces()
	ix.update = b
	if ix.part != nil {
		ix.part.onBegin()
	}
	// Side-car files an earlier, failed commit of the old batch wrote:
	// the new batch names its own. That commit may have landed, so the
	// newest state may name them: they are dropped, never deleted while
	// named.
	ix.graves.unsure = append(ix.graves.unsure, old.writtenSidecars()...)
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
	if !ix.watch.Checking() {
		return false
	}
	changed, err := ix.watch.Changed(ctx)
	if err == nil && changed {
		err = ix.reload(ctx, true)
	}
	if err != nil {
		ix.log.Warn("read the index again after a file vanished", "folder", ix.folder, "err", err)
		return false
	}
	return !current()
}

// Deferred deletion.
//
// A commit stops naming some files: the side-cars of items it replaced or
// deleted, and the text and metadata files of documents it replaced or
// deleted. A reader still on the previous snapshot — in this process, or
// in another process on the same folder until its next freshness check —
// may be about to read them. So a commit does not delete them: it lists
// them, with the time, in the folder's ".folio-dropped.json" (a file of
// Folio's own, which Vectra ignores), and a later commit (of any process)
// deletes those listed longer than IndexOptions.RetainDropped ago that the
// newest commit still does not name. Vacuum deletes them too once their
// time is up, and keeps the others, and so does the first read of an index
// on storage that can lock the folder. A process that exits leaves its
// list for those.
//
// The list is read and written only by commits and Vacuum, under the
// folder's lock, on the newest state, so a file is never deleted while the
// newest index or catalog names it — which also covers a file an ambiguous
// write may have made the index name (see cancelLocked).

// graveyard is the folder's list of dropped files (share.DroppedListName)
// as this index knows it, and the files of the commit being written that
// it drops. It is guarded by the writer lock.
type graveyard struct {
	storage FileStorage
	names   folderNames
	ext     string // the codec's extension: side-cars' and document files'
	log     *slog.Logger
	// retain is IndexOptions.RetainDropped with its default; listed is set
	// while this process knows the list holds entries, and next is when the
	// first of those it knows falls due (zero: now), so that a commit that
	// drops nothing reads the list only once something in it may be
	// deleted.
	retain time.Duration
	listed bool
	next   time.Time
	// dropping are files of the commit being written that it no longer
	// names besides side-cars (a document index's, and segments); unsure
	// are files a failed commit may have left named, dropped by the next.
	dropping []string
	unsure   []string
}

// DefaultRetainDropped is the least time dropped files are kept when
// IndexOptions.RetainDropped is 0: at least this, and at least eight
// freshness intervals.
const DefaultRetainDropped = 5 * time.Second

// retainFor is IndexOptions.RetainDropped with its default applied.
func retainFor(opts IndexOptions) time.Duration {
	if opts.RetainDropped != 0 {
		return opts.RetainDropped
	}
	every := opts.FreshnessInterval
	if every <= 0 {
		every = DefaultFreshnessInterval
	}
	return max(DefaultRetainDropped, 8*every)
}

// dropLocked deals with files the newest commit, which this process has
// just written and published, no longer names, together with those an
// earlier failed commit may have left named (ix.graves.unsure): it lists them as
// dropped and deletes the listed files whose time is up. With a negative
// RetainDropped they are deleted at once. ix.mu and the folder lock are
// held. Failures only leave files behind for Vacuum and are logged.
func (ix *LocalIndex) dropLocked(ctx context.Context, names []string) {
	ctx = context.WithoutCancel(ctx)
	names = append(names, ix.graves.unsure...)
	ix.graves.unsure = nil
	if ix.graves.retain < 0 {
		ix.deleteUnnamed(ctx, names)
		return
	}
	if len(names) == 0 && (!ix.graves.listed || time.Now().Before(ix.graves.next)) {
		return // nothing to add, nothing due: the list is not read
	}
	list := ix.graves.read(ctx)
	now := time.Now()
	due, kept := share.SplitDue(list, now, ix.graves.retain)
	for _, n := range names {
		kept = append(kept, share.Dropped{Name: n, At: now.UnixMilli()})
	}
	ix.deleteUnnamed(ctx, due)
	ix.graves.write(ctx, kept)
}

// deleteUnnamed deletes those of names that the newest commit does not
// name (an item's side-car, or a document's files). ix.mu and the folder
// lock are held.
func (ix *LocalIndex) deleteUnnamed(ctx context.Context, names []string) {
	if len(names) == 0 {
		return
	}
	named, err := ix.namedFiles(ctx, ix.cur.Load())
	if err != nil {
		ix.log.Warn("list document files; dropped files kept", "folder", ix.folder, "err", err)
		return
	}
	ix.graves.delete(ctx, slices.DeleteFunc(names, func(n string) bool { return named[n] }))
}

// namedFiles is the set of files that s (nil: none) and, in a document
// index, the catalog and the open batch name: side-cars and document files.
// ix.mu is held.
func (ix *LocalIndex) namedFiles(ctx context.Context, s *snapshot) (map[string]bool, error) {
	named := map[string]bool{}
	if s != nil {
		for i, f := range s.files {
			if f != "" && !s.isDead(i) {
				named[f] = true
			}
		}
	}
	for _, name := range ix.lay.names() {
		named[name] = true
	}
	if ix.part != nil {
		files, err := ix.part.ownedDocumentFiles(ctx)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			named[f] = true
		}
	}
	return named, nil
}

// delete deletes files of the folder named as Folio names side-cars
// and document files, logging failures and leaving every other name alone.
func (g *graveyard) delete(ctx context.Context, names []string) {
	for _, name := range names {
		if !g.names.ownFile(name, ".txt", g.ext) && !g.names.droppedSegment(name) {
			g.log.Warn("dropped file not removed: not named as Folio names its files", "folder", g.names.folder, "file", name)
			continue
		}
		if err := g.storage.DeleteFile(ctx, g.names.path(name)); err != nil {
			g.log.Warn("remove dropped file", "folder", g.names.folder, "file", name, "err", err)
		}
	}
}

// read reads the folder's list of dropped files.
func (g *graveyard) read(ctx context.Context) []share.Dropped {
	return share.ReadDropped(ctx, g.storage, g.names.path(share.DroppedListName), g.log)
}

// write replaces the folder's list and notes whether this process knows
// of listed files.
func (g *graveyard) write(ctx context.Context, list []share.Dropped) {
	g.listed = share.WriteDropped(ctx, g.storage, g.names.path(share.DroppedListName), list, g.log)
	g.note(list)
}

// note remembers when the first entry of list falls due.
func (g *graveyard) note(list []share.Dropped) {
	g.next = time.Time{}
	if len(list) == 0 {
		return
	}
	first := list[0].At
	for _, e := range list[1:] {
		first = min(first, e.At)
	}
	g.next = time.UnixMilli(first).Add(g.retain)
}

// collectDroppedAtOpen deletes, when the index is first read, the listed
// dropped files whose time is up (a process that exited left them), on
// storage that can lock the folder, under its lock and only when no other
// process has committed since the read. On other storage (object storage:
// one writer, and readers that must not write) they wait for the next
// commit or Vacuum. ix.mu is held.
func (ix *LocalIndex) collectDroppedAtOpen(ctx context.Context) {
	if !ix.files.locks || ix.graves.retain < 0 {
		return
	}
	if len(ix.graves.read(ctx)) == 0 {
		return
	}
	unlock, err := ix.lockFolder(ctx)
	if err != nil {
		return
	}
	defer unlock()
	if changed, err := ix.watch.Changed(ctx); err != nil || changed {
		return // the next commit collects them, from the newest state
	}
	due, kept := share.SplitDue(ix.graves.read(ctx), time.Now(), ix.graves.retain)
	ix.graves.listed = len(kept) > 0
	ix.graves.note(kept)
	if len(due) == 0 {
		return
	}
	ix.deleteUnnamed(ctx, due)
	ix.graves.write(context.WithoutCancel(ctx), kept)
}
