package core

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"

	"github.com/foliovec/folio/core/internal/meta"

	"github.com/foliovec/folio/core/pathutil"
)

// The document catalog, catalog<ext> beside the index file, maps URIs to
// document ids and content hashes, in Vectra's format. Folio reads it with
// the index and caches it, as Vectra does, and publishes a new one with
// every commit that changed documents; a published catalog is never
// modified (readers use it without locks), a batch works on a copy (a fix
// over Vectra, whose copy shared its maps with the committed catalog).
//
// # Crash consistency
//
// The index file and the catalog are two files, written one after the
// other. A chunk item whose document is not in the catalog is a stray: a
// document index leaves strays out when it loads the index file, so
// queries, listings and ListItems never see them, and the next commit
// writes the file without them. With that, a commit makes every document
// old or new at every instant, whatever the crash point:
//
//  1. the new documents' "<id>.txt" and "<id><ext>" files are written,
//     under new ids (a changed document gets a new id, so the old
//     version's files are never overwritten), as one group;
//  2. when the commit replaces or deletes documents, the index file is
//     written holding both versions' chunks;
//  3. the catalog is written with the new mappings and hashes;
//  4. the index file is written without the old versions' chunks (for a
//     commit that only adds documents, this is its only index write, and
//     it comes before step 3);
//  5. the files of replaced and deleted documents are removed.
//
// A crash before step 3 leaves the old catalog, whose documents all have
// their chunks in whichever index file is on disk (the new chunks are
// strays); a crash after it leaves the new catalog, whose documents all
// have theirs (the old chunks are strays). Files a crash leaves behind that
// nothing refers to are removed by Vacuum. Vectra opens every state: its
// catalog and index formats are unchanged, and it ignores strays in the
// same way when it groups chunks by document.

// docPending is the document side of the open batch: its working copy of
// the catalog, the files it will write and the files it made obsolete. A
// LocalDocumentIndex has one from the batch's first document write to its
// commit or cancel, guarded by the index's writer lock.
type docPending struct {
	cat DocumentCatalog
	// retired are the batch positions of the chunks of documents this
	// batch replaced or deleted: the index file of step 2 keeps them.
	retired map[int32]bool
	// files are the new documents' files, written by the commit (step 1),
	// all at once.
	files []*docFile
	// obsolete are the files of documents this batch replaced or deleted,
	// removed once it is committed.
	obsolete []string
	// texts are the new documents' texts by id, for the keyword index.
	texts map[string]string
	// byDoc holds the batch positions of each catalogued document's chunk
	// items; nil until the batch's first document write scans the batch.
	byDoc map[string][]int32
	// wrote is set once the catalog write was tried; decided once it
	// succeeded while the index file on disk held both versions (step 3):
	// the commit then stands even if step 4 fails.
	wrote, decided bool
}

// docFile is a file of a new document.
type docFile struct {
	name    string
	content []byte
	doc     string // the document's id
	written bool
	// tried is set once a write was attempted: a failed write may still
	// have landed, so a cancel removes the file.
	tried bool
}

// initialCatalog is the catalog Vectra writes when a document index is
// first opened: version 1, no documents, no uriToHash.
func initialCatalog() *DocumentCatalog {
	return &DocumentCatalog{Version: 1, URIToID: map[string]string{}, IDToURI: map[string]string{}}
}

// cloneCatalog copies c, maps included.
func cloneCatalog(c *DocumentCatalog) DocumentCatalog {
	out := DocumentCatalog{
		Version: c.Version,
		Count:   c.Count,
		URIToID: maps.Clone(c.URIToID),
		IDToURI: maps.Clone(c.IDToURI),
	}
	if c.URIToHash != nil {
		out.URIToHash = maps.Clone(c.URIToHash)
	}
	return out
}

// catalogPath is the catalog's storage path.
func (d *LocalDocumentIndex) catalogPath() string {
	return d.names.path("catalog" + d.Codec().Extension())
}

// catalog returns the committed catalog, loading the index and the catalog
// on first use. Its error names op and key, the caller's own argument.
func (d *LocalDocumentIndex) catalog(ctx context.Context, op, key string) (*DocumentCatalog, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c := d.cat.Load(); c != nil && d.cur.Load() != nil {
		if err := d.refresh(ctx); err != nil {
			return nil, WrapOp(ctx, op, key, err)
		}
		if c := d.cat.Load(); c != nil && d.cur.Load() != nil {
			return c, nil
		}
	}
	var c *DocumentCatalog
	err := d.locked(ctx, func() (err error) {
		c, err = d.catalogLocked(ctx)
		return err
	})
	if err != nil {
		return nil, WrapOp(ctx, op, key, err)
	}
	return c, nil
}

// catalogLocked is catalog with the writer lock held.
func (d *LocalDocumentIndex) catalogLocked(ctx context.Context) (*DocumentCatalog, error) {
	s, err := d.loadLocked(ctx)
	if err != nil {
		return nil, err
	}
	if c := d.cat.Load(); c != nil {
		return c, nil
	}
	return d.loadCatalogLocked(ctx, s.count())
}

// loadCatalogLocked reads the catalog of an index of items items and
// publishes it. A missing catalog is created and written at once, as
// Vectra does (so IsCatalogCreated is true after any read), when the index
// is empty; beside an index that holds items it is ErrNotDocumentIndex: the
// folder holds a plain index, which a document index must not write into.
func (d *LocalDocumentIndex) loadCatalogLocked(ctx context.Context, items int) (*DocumentCatalog, error) {
	p := d.catalogPath()
	version := d.watch.Current(ctx, p) // before the read, as for the index file
	raw, err := d.Storage().ReadFile(ctx, p)
	var c *DocumentCatalog
	switch {
	case errors.Is(err, fs.ErrNotExist) && items > 0:
		return nil, fmt.Errorf("no document catalog %q beside an index of %d items: %w", p, items, ErrNotDocumentIndex)
	case errors.Is(err, fs.ErrNotExist):
		// Created exclusively: another process creating it at the same
		// time, or already committing documents to it, keeps its own.
		c = initialCatalog()
		err := d.createCatalog(ctx, c)
		if errors.Is(err, fs.ErrExist) {
			return d.loadCatalogLocked(ctx, items)
		}
		if err != nil {
			return nil, fmt.Errorf("create document catalog %q: %w", p, err)
		}
		d.cat.Store(c)
		return c, nil
	case err != nil:
		return nil, fmt.Errorf("load document catalog %q: %w", p, err)
	default:
		data, err := d.Codec().DeserializeCatalog(raw)
		if err != nil {
			return nil, fmt.Errorf("load document catalog %q: %w", p, err)
		}
		if c, err = checkCatalog(data); err != nil {
			return nil, fmt.Errorf("load document catalog %q: %w", p, err)
		}
	}
	d.watch.Set(p, version)
	d.cat.Store(c)
	return c, nil
}

// onLoad runs when the index file is decoded: it loads the catalog (so
// that a plain index is refused before anything uses it), makes the chunk
// keys of every chunk item inline, and leaves out stray chunks, whose
// document is not in the catalog (see Crash consistency above).
func (d *LocalDocumentIndex) onLoad(ctx context.Context, data *IndexData, total int, reload bool) error {
	c := d.cat.Load()
	if c == nil || reload {
		var err error
		if c, err = d.loadCatalogLocked(ctx, total); err != nil {
			return err
		}
	}
	if err := d.inlineChunkKeys(ctx, data.Items); err != nil {
		return err
	}
	var kept []IndexItem // nil until the first stray
	for i, it := range data.Items {
		if doc, ok := meta.DocumentID(it.Metadata); ok {
			if _, known := c.IDToURI[doc]; !known {
				if kept == nil {
					kept = slices.Clone(data.Items[:i])
				}
				continue
			}
		}
		if kept != nil {
			kept = append(kept, it)
		}
	}
	if kept != nil {
		d.log.Info("stray chunks left out", "folder", d.FolderPath(), "chunks", len(data.Items)-len(kept))
		data.Items = kept
		d.strays = true
	}
	return nil
}

// inlineChunkKeys copies documentId, startPos and endPos from the side-car
// into the inline metadata of every item that has a side-car and not those
// keys inline. Folio keeps them inline when it writes chunks; Vectra, in an
// index with indexed metadata, keeps them only in side-cars, where the
// engine (the keyword index, document grouping, replacing a document)
// cannot see them. A side-car that cannot be read is logged and its item
// left as it is, as a query would only fail on it if it were returned.
func (d *LocalDocumentIndex) inlineChunkKeys(ctx context.Context, items []IndexItem) error {
	var todo []int
	for i, it := range items {
		if it.MetadataFile == "" {
			continue
		}
		if _, ok := meta.DocumentID(it.Metadata); !ok {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	found := make([]Metadata, len(todo))
	errs := make([]error, len(todo))
	sem := make(chan struct{}, maxSidecarReads)
	var wg sync.WaitGroup
	for j, i := range todo {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if !pathutil.IsLocal(items[i].MetadataFile) {
				errs[j] = fmt.Errorf("metadata file %q leaves the folder: %w", items[i].MetadataFile, ErrCorrupt)
				return
			}
			found[j], errs[j] = d.sides.read(ctx, items[i].MetadataFile)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for j, i := range todo {
		if errs[j] != nil {
			d.log.Warn("read chunk keys from metadata file", "folder", d.FolderPath(), "item", items[i].ID, "err", errs[j])
			continue
		}
		if _, ok := meta.DocumentID(found[j]); !ok {
			continue
		}
		md := make(Metadata, len(items[i].Metadata)+len(reservedChunkKeys))
		maps.Copy(md, items[i].Metadata)
		for _, k := range reservedChunkKeys {
			md[k] = found[j][k]
		}
		items[i].Metadata = md
	}
	return nil
}

// checkCatalog fills in missing maps, refuses ids that would leave the
// folder (ErrCorrupt) and recomputes the document count from the map.
func checkCatalog(c DocumentCatalog) (*DocumentCatalog, error) {
	if c.URIToID == nil {
		c.URIToID = map[string]string{}
	}
	if c.IDToURI == nil {
		c.IDToURI = map[string]string{}
	}
	if err := meta.CheckDocumentIDs(c.IDToURI, c.URIToID); err != nil {
		return nil, err
	}
	// The stored count is derived data: a count that disagrees with the
	// map (negative, absurd, or off after a foreign write) is recomputed.
	c.Count = len(c.URIToID)
	return &c, nil
}

// writeCatalog writes c as the catalog file.
func (d *LocalDocumentIndex) writeCatalog(ctx context.Context, c *DocumentCatalog) error {
	return d.storeCatalog(ctx, c, d.Storage().UpsertFile)
}

// createCatalog writes c as a new catalog file; one already there is an
// error wrapping fs.ErrExist.
func (d *LocalDocumentIndex) createCatalog(ctx context.Context, c *DocumentCatalog) error {
	return d.storeCatalog(ctx, c, d.Storage().CreateFile)
}

// storeCatalog serialises c, stores it with write and records the
// version written.
func (d *LocalDocumentIndex) storeCatalog(ctx context.Context, c *DocumentCatalog, write func(ctx context.Context, path string, content []byte) error) error {
	raw, err := d.Codec().SerializeCatalog(*c)
	if err != nil {
		return fmt.Errorf("serialize document catalog: %w", err)
	}
	if err := write(ctx, d.catalogPath(), raw); err != nil {
		return err
	}
	d.watch.Note(ctx, d.catalogPath())
	return nil
}

// pendingLocked returns the open batch's catalog copy, making it on first
// use. The writer lock is held and a batch is open.
func (d *LocalDocumentIndex) pendingLocked(committed *DocumentCatalog) *docPending {
	if d.pending == nil {
		d.pending = &docPending{cat: cloneCatalog(committed), retired: map[int32]bool{}, texts: map[string]string{}}
	}
	return d.pending
}

// viewLocked is the catalog as the open batch sees it.
func (d *LocalDocumentIndex) viewLocked(committed *DocumentCatalog) *DocumentCatalog {
	if d.pending != nil {
		return &d.pending.cat
	}
	return committed
}

// LocalDocumentIndex is its LocalIndex's commitParticipant: these methods run
// with the writer lock held.

func (d *LocalDocumentIndex) onBegin() {
	if d.pending != nil {
		// A batch rebased on another process's commit: its documents are
		// applied again from scratch.
		d.forgetTexts(d.pending.texts)
	}
	d.pending = nil
}

// onBeforeSave writes the new documents' files (step 1) and, when the
// batch replaces or deletes documents, the index file with both versions'
// chunks and then the catalog (steps 2 and 3).
func (d *LocalDocumentIndex) onBeforeSave(ctx context.Context, saveBoth func(keep map[int32]bool) error) error {
	p := d.pending
	if p == nil {
		return nil
	}
	if err := d.writeFiles(ctx, p.files); err != nil {
		return fmt.Errorf("save document files: %w", err)
	}
	if len(p.retired) == 0 {
		return nil // the catalog follows the index file (onAfterSave)
	}
	if err := saveBoth(p.retired); err != nil {
		return fmt.Errorf("save index with both versions: %w", err)
	}
	// Set before the write: a failed write may still have landed.
	p.wrote = true
	if err := d.writeCatalog(ctx, &p.cat); err != nil {
		return fmt.Errorf("save document catalog %q: %w", d.catalogPath(), err)
	}
	p.decided = true
	return nil
}

// commitDecided reports whether the catalog of the batch being committed is
// written (step 3): the commit then stands even if the final index write
// fails, since the index file on disk holds every new chunk.
func (d *LocalDocumentIndex) commitDecided() bool { return d.pending != nil && d.pending.decided }

// writeFiles writes the files not written yet as one group (writeGroup)
// and marks them written.
func (d *LocalDocumentIndex) writeFiles(ctx context.Context, files []*docFile) error {
	var todo []*docFile
	var group []FileWrite
	for _, f := range files {
		if !f.written {
			f.tried = true
			todo = append(todo, f)
			group = append(group, FileWrite{Path: d.names.path(f.name), Content: f.content})
		}
	}
	if err := d.files.writeGroup(ctx, group); err != nil {
		return err
	}
	for _, f := range todo {
		f.written = true
	}
	return nil
}

// onAfterSave writes the catalog of a batch that only added documents,
// now that the index file holds their chunks, publishes it and returns
// the files of the documents the batch replaced or deleted, for the
// commit to drop.
func (d *LocalDocumentIndex) onAfterSave(ctx context.Context) ([]string, error) {
	p := d.pending
	if p == nil {
		return nil, nil
	}
	if !p.decided {
		p.wrote = true
		if err := d.writeCatalog(ctx, &p.cat); err != nil {
			return nil, fmt.Errorf("save document catalog %q: %w", d.catalogPath(), err)
		}
	}
	c := p.cat
	d.cat.Store(&c)
	d.forgetTexts(p.texts)
	d.pending = nil
	return p.obsolete, nil
}

// onCancel puts the committed catalog back when the batch tried to write
// its own (a failed write may have landed; the index file on disk holds
// every old chunk until the catalog is decided), then removes the files
// the batch wrote — unless the committed catalog could not be put back, in
// which case the new one may be on disk and needs them (Vacuum removes
// them once nothing refers to them).
func (d *LocalDocumentIndex) onCancel() {
	p := d.pending
	if p == nil {
		return
	}
	d.pending = nil
	ctx := context.Background()
	d.forgetTexts(p.texts)
	if p.wrote {
		if c := d.cat.Load(); c != nil {
			if err := d.writeCatalog(ctx, c); err != nil {
				d.log.Warn("restore document catalog", "path", d.catalogPath(), "err", err)
				return
			}
		}
	}
	var written []string
	for _, f := range p.files {
		if f.written || f.tried {
			written = append(written, f.name)
		}
	}
	d.removeFiles(ctx, written)
}

// removeFiles deletes files of the index folder, logging failures, and
// returns the failures by file name.
func (d *LocalDocumentIndex) removeFiles(ctx context.Context, names []string) map[string]error {
	var failed map[string]error
	for _, name := range names {
		if !d.names.ownFile(name, ".txt", d.Codec().Extension()) {
			d.log.Warn("document file not removed: not named as a document file", "folder", d.FolderPath(), "file", name)
			continue
		}
		if err := d.Storage().DeleteFile(ctx, d.names.path(name)); err != nil {
			d.log.Warn("remove document file", "folder", d.FolderPath(), "file", name, "err", err)
			if failed == nil {
				failed = map[string]error{}
			}
			failed[name] = err
		}
	}
	return failed
}

// documentFiles are the names of a document's text and metadata files.
func (d *LocalDocumentIndex) documentFiles(id string) []string {
	return []string{id + ".txt", id + d.Codec().Extension()}
}
