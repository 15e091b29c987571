package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
)

// layout is how an index's files hold it: Vectra's one index file
// (fileLayout, below) or Folio's segments named by a manifest (segLayout,
// layout_segmented.go). The engine holds one, set when the index is
// created, read or converted, and never asks which it has: it loads,
// commits, reads what another process added, compacts, converts and
// reports through these methods. Another layout (a partitioned one) is
// another implementation. Every method runs with ix.mu held unless its
// comment says otherwise.
type layout interface {
	// kind names the layout, as GetIndexStats reports it.
	kind() Layout
	// path is the file that names the index: an error about the layout's
	// files names it.
	path() string
	// admit builds the snapshot of l, which the layout's files gave, with
	// the document layer's onLoad (reload: read again because another
	// process changed the folder).
	admit(ctx context.Context, l *loaded, reload bool) (*snapshot, error)
	// save writes s: what differs from what the files hold, or all of it.
	// Files it stops naming are added to ix.graves.dropping.
	save(ctx context.Context, s *snapshot) error
	// readNew brings the index up to date with what another process
	// added, reading only that; ok false means the caller reads the files
	// whole.
	readNew(ctx context.Context) (s *snapshot, ok bool, err error)
	// stats reports how the index is stored.
	stats() LayoutStats
	// keepsPlaces reports whether a batch keeps a replaced item of the
	// base in its place (batch.keepPlace): the file layout writes every
	// item in order, so places are free to keep; the segmented layout
	// appends the new version as a new row.
	keepsPlaces() bool
	// names lists the files the layout names besides the index's path
	// (the segments), which Vacuum keeps.
	names() []string
	// bulkLoad checks src and stores it as the index's items in place of
	// the empty state s (BulkLoad), or refuses with ErrInvalidArgument.
	bulkLoad(ctx context.Context, s *snapshot, src IndexSource) error
	// rewriter returns the work of compacting or merging the files of s,
	// the state loaded now (Compact, CompactIfDue), to run without ix.mu
	// held; nil is nothing to do.
	rewriter(s *snapshot, mode rewriteMode) func(context.Context) (CompactReport, error)
	// retire deletes what this layout's files would still make readers
	// take for the index, once a conversion has saved it on another: on
	// failure, stays reports whether the folder still reads as this
	// layout.
	retire(ctx context.Context) (stays bool, err error)
	// tidy finishes an interrupted conversion to this layout: it deletes
	// what the other layout left.
	tidy(ctx context.Context) error
}

// rewriteMode is what a layout's rewrite does.
type rewriteMode int

const (
	rewriteAll   rewriteMode = iota // every segment into one (Compact)
	rewriteMerge                    // the newest run commits left (CompactIfDue)
)

// newLayout returns an empty layout of kind k for the index.
func (ix *LocalIndex) newLayout(k Layout) layout {
	if k == LayoutSegmented {
		return &segLayout{ix: ix}
	}
	return fileLayout{ix: ix}
}

// readFiles reads the index on whichever layout the folder holds: the
// segmented layout's manifest when there is one, else the index file. A
// missing index is an error wrapping fs.ErrNotExist.
//
// A segment the manifest names that the folder lacks is ErrCorrupt, unless
// the manifest changed meanwhile (a commit of another process replaced it
// and dropped the segment): the newer one is read then.
func (ix *LocalIndex) readFiles(ctx context.Context) (loaded, error) {
	m, err := ix.readManifest(ctx)
	for attempt := 0; err == nil; attempt++ {
		var l loaded
		err := (&segLayout{ix: ix, man: m}).load(ctx, &l)
		if err == nil || !errors.Is(err, fs.ErrNotExist) || ctx.Err() != nil {
			return l, err
		}
		newer, merr := ix.readManifest(ctx)
		if merr == nil && attempt < vanishedRetries && !slices.Equal(newer.Names(), m.Names()) {
			m = newer
			continue
		}
		return loaded{}, fmt.Errorf("%v, which the segments manifest names: %w", err, ErrCorrupt)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return loaded{}, err
	}
	data, arena, size, err := ix.files.decodeIndex(ctx, ix.names.indexPath())
	return loaded{data: data, arena: arena, size: size, lay: fileLayout{ix: ix}}, err
}

// fileLayout is Vectra's layout: one index file holding every item.
type fileLayout struct{ ix *LocalIndex }

func (f fileLayout) kind() Layout      { return LayoutFile }
func (f fileLayout) path() string      { return f.ix.names.indexPath() }
func (f fileLayout) keepsPlaces() bool { return true }
func (f fileLayout) names() []string   { return nil }
func (f fileLayout) stats() LayoutStats {
	return LayoutStats{Layout: LayoutFile}
}

func (f fileLayout) readNew(context.Context) (*snapshot, bool, error) { return nil, false, nil }

func (f fileLayout) admit(ctx context.Context, l *loaded, reload bool) (*snapshot, error) {
	if p := f.ix.part; p != nil {
		if err := p.onLoad(ctx, &l.data, len(l.data.Items), reload); err != nil {
			return nil, err
		}
	}
	return snapshotFromData(l.data, l.arena)
}

// save writes s as the index file: encoded straight into the file when
// the storage is a FileStreamWriter and the codec an IndexStreamEncoder,
// else encoded whole, then written. Rows that cannot be read leave the
// file as it was.
func (f fileLayout) save(ctx context.Context, s *snapshot) error {
	ix := f.ix
	if _, failed := s.source(ctx); failed() != nil {
		return failed()
	}
	src, failed := s.source(ctx)
	// The index file is read again only when another process commits:
	// this one keeps its items.
	if err := ix.files.write(ctx, ix.names.indexPath(), true, func(w io.Writer) error {
		if err := ix.files.encodeIndex(w, src); err != nil {
			return err
		}
		return failed()
	}); err != nil {
		return err
	}
	ix.watch.Note(ctx, ix.names.indexPath())
	return nil
}

func (f fileLayout) bulkLoad(context.Context, *snapshot, IndexSource) error {
	return fmt.Errorf("the index is not on the segmented layout: %w", ErrInvalidArgument)
}

// rewriter has nothing to do: the index file holds no dead rows.
func (f fileLayout) rewriter(*snapshot, rewriteMode) func(context.Context) (CompactReport, error) {
	return nil
}

func (f fileLayout) retire(ctx context.Context) (bool, error) {
	// A manifest beside it is what the folder reads: failing to delete
	// the index file leaves the new layout in force.
	return false, f.ix.storage.DeleteFile(ctx, f.ix.names.indexPath())
}

func (f fileLayout) tidy(context.Context) error { return nil }

// ConvertLayout stores the index on layout, keeping its items, version
// and metadata config, its side-cars and, in a document index, its catalog
// and document files. To LayoutSegmented it writes one segment and the
// manifest, then deletes the index file; to LayoutFile it writes the index
// file, then deletes the manifest and the segments. It holds the writer
// lock, and the folder's lock on storage that has one, throughout. An
// interrupted conversion leaves the index readable (the manifest, when
// present, is what the index holds) and finishes when run again. An open
// batch is ErrUpdateInProgress; an unknown layout ErrInvalidArgument.
func (ix *LocalIndex) ConvertLayout(ctx context.Context, layout Layout) error {
	const op = "convert layout"
	layout, err := ParseLayout(string(layout))
	if err != nil {
		return WrapOp(ctx, op, ix.folder, err)
	}
	if err := ix.mu.LockContext(ctx); err != nil {
		return err
	}
	defer ix.mu.Unlock()
	if ix.update != nil {
		return WrapOp(ctx, op, ix.folder, ErrUpdateInProgress)
	}
	unlock, err := ix.lockFolder(ctx)
	if err != nil {
		return WrapOp(ctx, op, ix.folder, err)
	}
	defer unlock()
	s, err := ix.loadLocked(ctx)
	if err == nil {
		err = ix.refreshLocked(ctx)
		s = ix.cur.Load()
	}
	if err == nil {
		err = ix.convertLocked(ctx, s, layout)
	}
	ix.publishLayout()
	if err != nil {
		return WrapOp(ctx, op, ix.folder, err)
	}
	return nil
}

// convertLocked stores s on the layout to, then retires the files of the
// layout it was on; a conversion to the layout the index is on finishes an
// interrupted one (tidy).
func (ix *LocalIndex) convertLocked(ctx context.Context, s *snapshot, to Layout) error {
	if ix.lay.kind() == to {
		return ix.lay.tidy(ctx)
	}
	old := ix.lay
	ix.lay = ix.newLayout(to)
	if err := ix.save(ctx, s); err != nil {
		ix.lay = old
		return err
	}
	if stays, err := old.retire(ctx); err != nil {
		if stays {
			ix.lay = old
		}
		return err
	}
	return nil
}
