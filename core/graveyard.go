package core

import (
	"context"
	"slices"
	"time"

	"github.com/foliovec/folio/core/internal/share"
)

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
// earlier failed commit may have left named (ix.unsure): it lists them as
// dropped and deletes the listed files whose time is up. With a negative
// RetainDropped they are deleted at once. ix.mu and the folder lock are
// held. Failures only leave files behind for Vacuum and are logged.
func (ix *LocalIndex) dropLocked(ctx context.Context, names []string) {
	ctx = context.WithoutCancel(ctx)
	names = append(names, ix.unsure...)
	ix.unsure = nil
	if ix.retain < 0 {
		ix.deleteUnnamed(ctx, names)
		return
	}
	if len(names) == 0 && !ix.droppedListed {
		return
	}
	list := ix.readDropped(ctx)
	now := time.Now()
	due, kept := share.SplitDue(list, now, ix.retain)
	for _, n := range names {
		kept = append(kept, share.Dropped{Name: n, At: now.UnixMilli()})
	}
	ix.deleteUnnamed(ctx, due)
	ix.writeDropped(ctx, kept)
}

// deleteUnnamed deletes those of names that the newest commit does not
// name (an item's side-car, or a document's files). ix.mu and the folder
// lock are held.
func (ix *LocalIndex) deleteUnnamed(ctx context.Context, names []string) {
	if len(names) == 0 {
		return
	}
	named := map[string]bool{}
	if s := ix.cur.Load(); s != nil {
		for _, f := range s.files {
			if f != "" {
				named[f] = true
			}
		}
	}
	if ix.part != nil {
		files, err := ix.part.ownedDocumentFiles(ctx)
		if err != nil {
			ix.log.Warn("core: list document files; dropped files kept", "folder", ix.folder, "err", err)
			return
		}
		for _, f := range files {
			named[f] = true
		}
	}
	ix.deleteDropped(ctx, slices.DeleteFunc(names, func(n string) bool { return named[n] }))
}

// deleteDropped deletes files of the folder named as Folio names side-cars
// and document files, logging failures and leaving every other name alone.
func (ix *LocalIndex) deleteDropped(ctx context.Context, names []string) {
	for _, name := range names {
		if !ix.ownFile(name, ".txt", ix.codec.Extension()) {
			ix.log.Warn("core: dropped file not removed: not named as Folio names its files", "folder", ix.folder, "file", name)
			continue
		}
		if err := ix.storage.DeleteFile(ctx, ix.path(name)); err != nil {
			ix.log.Warn("core: remove dropped file", "folder", ix.folder, "file", name, "err", err)
		}
	}
}

func (ix *LocalIndex) readDropped(ctx context.Context) []share.Dropped {
	return share.ReadDropped(ctx, ix.storage, ix.path(share.DroppedListName), ix.log)
}

// writeDropped replaces the folder's list and notes whether this process
// knows of listed files.
func (ix *LocalIndex) writeDropped(ctx context.Context, list []share.Dropped) {
	ix.droppedListed = share.WriteDropped(ctx, ix.storage, ix.path(share.DroppedListName), list, ix.log)
}

// collectDroppedAtOpen deletes, when the index is first read, the listed
// dropped files whose time is up (a process that exited left them), on
// storage that can lock the folder, under its lock and only when no other
// process has committed since the read. On other storage (object storage:
// one writer, and readers that must not write) they wait for the next
// commit or Vacuum. ix.mu is held.
func (ix *LocalIndex) collectDroppedAtOpen(ctx context.Context) {
	if _, ok := ix.storage.(FolderLocker); !ok || ix.retain < 0 {
		return
	}
	if len(ix.readDropped(ctx)) == 0 {
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
	due, kept := share.SplitDue(ix.readDropped(ctx), time.Now(), ix.retain)
	ix.droppedListed = len(kept) > 0
	if len(due) == 0 {
		return
	}
	ix.deleteUnnamed(ctx, due)
	ix.writeDropped(context.WithoutCancel(ctx), kept)
}
