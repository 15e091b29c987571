package core

import (
	"context"
	"strings"
	"time"

	"github.com/foliovec/folio/core/internal/segfile"
	"github.com/foliovec/folio/core/pathutil"

	"github.com/foliovec/folio/core/internal/share"
	"github.com/foliovec/folio/core/internal/uuid"
)

// folderNames names the files of an index in its folder.
type folderNames struct {
	folder  string // the folder's path
	index   string // the index file's name (IndexOptions.IndexName)
	catalog string // a document index's catalog file's name
}

// path is the path of the file name in the folder.
func (n folderNames) path(name string) string { return pathutil.Join(n.folder, name) }

// indexPath is the index file's path.
func (n folderNames) indexPath() string { return n.path(n.index) }

// manifestPath is the segmented layout's manifest: the index file's path
// and ".manifest".
func (n folderNames) manifestPath() string { return n.indexPath() + segfile.ManifestExt }

// ownSegment reports whether name is named as this index names its
// segment files: "<index file>.<uuid>.seg".
func (n folderNames) ownSegment(name string) bool {
	rest, ok := strings.CutPrefix(name, n.index+".")
	if !ok {
		return false
	}
	base, ok := strings.CutSuffix(rest, segfile.Ext)
	return ok && uuid.Valid(base)
}

// droppedSegment reports whether name, listed as dropped, is a segment
// file Folio may delete: one of this index (ownSegment), or one of the
// index of the same name under another codec ("index.pb.<uuid>.seg" beside
// "index.json"), which a migration between codecs dropped after it
// converted the segments to an index file.
func (n folderNames) droppedSegment(name string) bool {
	if n.ownSegment(name) {
		return true
	}
	stem := strings.TrimSuffix(n.index, pathutil.Extname(n.index))
	rest, ok := strings.CutPrefix(name, stem+".")
	if !ok || stem == "" {
		return false
	}
	ext, base, ok := strings.Cut(rest, ".")
	if !ok || ext == "" || strings.ContainsFunc(ext, func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) {
		return false
	}
	base, ok = strings.CutSuffix(base, segfile.Ext)
	return ok && uuid.Valid(base)
}

// partitionsPath is the file of the index's partitions
// (IndexOptions.Partitions) on the segmented layout: "<index file>.partitions".
func (n folderNames) partitionsPath() string { return n.indexPath() + ".partitions" }

// groupsPath is the file of the 4-bit codes of the index's partitions
// grouped by partition, which an open maps: "<index file>.groups".
func (n folderNames) groupsPath() string { return n.indexPath() + ".groups" }

// newSegmentName names a new segment file of the index.
func (n folderNames) newSegmentName() string { return n.index + "." + uuid.New() + segfile.Ext }

// Folio deletes only files it could have written for the role at hand:
// side-cars "<uuid><ext>" and document files "<uuid>.txt" and
// "<uuid><ext>", named as Folio and Vectra name them, never the index or
// the catalog file, whatever a metadataFile value, a catalog id or a chunk's
// documentId read from a file says. A name that is not one of those is
// left alone and logged.

// ownFile reports whether name is a file of the folder that Folio may
// delete: "<uuid><ext>" with ext one of exts, and neither the index file
// nor the catalog file.
func (n folderNames) ownFile(name string, exts ...string) bool {
	if name == n.index || name == n.catalog {
		return false
	}
	for _, ext := range exts {
		if base, ok := strings.CutSuffix(name, ext); ok && uuid.Valid(base) {
			return true
		}
	}
	return false
}

// staleTempAge is how old a temporary file must be before opening an index
// or Vacuum removes it when the storage cannot tell whether its write is
// still in progress: older than any write in progress, in this process or
// another. Storage that can tell (storagefs on Unix) removes those of
// ended writes at once.
const staleTempAge = 15 * time.Minute

// removeStaleTemps removes temporary files of interrupted writes from the
// folder, when the storage can; failures are logged.
func (ix *LocalIndex) removeStaleTemps(ctx context.Context) int {
	if ix.files.temps == nil {
		return 0
	}
	n, err := ix.files.temps.RemoveTempFiles(ctx, ix.folder, staleTempAge)
	if err != nil {
		ix.log.Warn("remove temporary files", "folder", ix.folder, "err", err)
	}
	return n
}

// VacuumReport is what Vacuum removed.
type VacuumReport struct {
	// Sidecars are side-car files no item refers to.
	Sidecars []string
	// Documents are text and metadata files of documents not in the
	// catalog (document indexes only).
	Documents []string
	// TempFiles is the number of temporary files of interrupted writes
	// removed (storage implementing TempFileRemover only).
	TempFiles int
	// Segments are segment files no manifest names (segmented layout):
	// written by a commit or compaction that did not complete.
	Segments []string
	// Compacted is what the compaction Vacuum runs first on the segmented
	// layout did.
	Compacted CompactReport
}

// Vacuum removes what crashes and failed writes leave behind in the folder:
// side-car files "<uuid><ext>" that no committed item refers to, and
// temporary files of interrupted writes, when the storage can find them
// (TempFileRemover): on the file-system storage on Unix, every one whose
// writer has ended (died or given up), elsewhere those older than 15
// minutes. In a document index it also
// removes the text and metadata files ("<uuid>.txt", "<uuid><ext>") of
// documents that are not in the catalog, and keeps those of the documents
// that are (a side-car and a document metadata file look alike; files
// named by neither an item nor a document are reported under Documents).
// Files a commit dropped less than IndexOptions.RetainDropped ago are kept
// for readers still on the previous state. Files that are not named as
// Folio names its own are never touched. It
// runs under the writer lock, so it waits for a commit in progress and is
// safe while the index is in use in this process. On storage with
// FolderLocker and FileVersioner it also holds the folder's lock and works
// from the newest commit, so it is safe while other processes write the
// folder; on other storage, another process writing the same folder may
// lose a file it is about to commit. Failures to
// delete are logged; the report lists what was removed.
//
// On the segmented layout it then compacts the index (Compact): the files
// go first, so that Vacuum frees space on a full disk, where the
// compaction's new segment may not fit.
func (ix *LocalIndex) Vacuum(ctx context.Context) (VacuumReport, error) {
	var rep VacuumReport
	if err := ix.removeUnnamed(ctx, &rep); err != nil {
		return rep, err
	}
	compacted, err := ix.Compact(ctx)
	rep.Compacted = compacted
	return rep, err
}

// removeUnnamed is Vacuum's removal of the files no commit names, into rep.
func (ix *LocalIndex) removeUnnamed(ctx context.Context, rep *VacuumReport) error {
	const op = "vacuum"
	if err := ix.mu.LockContext(ctx); err != nil {
		return err
	}
	defer ix.mu.Unlock()
	unlock, err := ix.lockFolder(ctx)
	if err != nil {
		return WrapOp(ctx, op, ix.folder, err)
	}
	defer unlock()
	s, err := ix.loadLocked(ctx)
	if err != nil {
		return WrapOp(ctx, op, ix.folder, err)
	}
	// What other processes committed is kept too.
	if changed, err := ix.watch.Changed(ctx); err != nil {
		return WrapOp(ctx, op, ix.folder, err)
	} else if changed {
		if s, err = ix.readLocked(ctx, true); err != nil {
			return WrapOp(ctx, op, ix.folder, err)
		}
	}
	if ix.strays {
		// The file on disk still holds stray chunks whose files are about
		// to go: write it as this process sees it first.
		if err := ix.save(ctx, s); err != nil {
			return WrapOp(ctx, op, ix.folder, err)
		}
	}
	keep, err := ix.namedFiles(ctx, s)
	if err != nil {
		return WrapOp(ctx, op, ix.folder, err)
	}
	documents := ix.part != nil
	// Dropped files whose time is not up yet are kept for the readers
	// that may still read them (see IndexOptions.RetainDropped); the list
	// then keeps only those.
	listed := ix.graves.read(ctx)
	due, notDue := share.SplitDue(listed, time.Now(), ix.graves.retain)
	if ix.graves.retain < 0 {
		due, notDue = share.SplitDue(listed, time.Now(), 0)
	}
	for _, e := range notDue {
		keep[e.Name] = true
	}
	if len(listed) > 0 {
		defer ix.graves.write(context.WithoutCancel(ctx), notDue)
	}
	// The files listed whose time is up go in the sweep below; those it
	// does not recognise too: segments of this index under another codec,
	// which a migration between codecs dropped.
	for _, name := range due {
		if !keep[name] && !ix.names.ownSegment(name) && ix.names.droppedSegment(name) {
			if err := ix.storage.DeleteFile(ctx, ix.names.path(name)); err != nil {
				ix.log.Warn("vacuum: remove file", "folder", ix.folder, "file", name, "err", err)
				continue
			}
			rep.Segments = append(rep.Segments, name)
		}
	}
	rep.TempFiles = ix.removeStaleTemps(ctx)
	list, err := ix.storage.ListFiles(ctx, ix.folder, ListFilesOnly)
	if err != nil {
		return WrapOp(ctx, op, ix.folder, err)
	}
	ext := ix.codec.Extension()
	for _, fd := range list {
		name := fd.Name
		if keep[name] {
			continue
		}
		var into *[]string
		switch {
		case documents && ix.names.ownFile(name, ".txt", ext):
			into = &rep.Documents
		case ix.names.ownFile(name, ext):
			into = &rep.Sidecars
		case ix.names.ownSegment(name):
			into = &rep.Segments
		default:
			continue
		}
		if err := ix.storage.DeleteFile(ctx, ix.names.path(name)); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			ix.log.Warn("vacuum: remove file", "folder", ix.folder, "file", name, "err", err)
			continue
		}
		*into = append(*into, name)
	}
	return nil
}

// documentFiles lists the files of the documents in the committed
// catalog and in the open batch, for Vacuum to keep. The writer lock is
// held.
func (d *LocalDocumentIndex) ownedDocumentFiles(ctx context.Context) ([]string, error) {
	c, err := d.catalogLocked(ctx)
	if err != nil {
		return nil, err
	}
	catalogs := []*DocumentCatalog{c}
	var out []string
	if d.pending != nil {
		catalogs = append(catalogs, &d.pending.cat)
		for _, f := range d.pending.files {
			out = append(out, f.name)
		}
	}
	for _, c := range catalogs {
		for id := range c.IDToURI {
			out = append(out, d.documentFiles(id)...)
		}
	}
	return out, nil
}
