package core

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"strings"
	"sync"
)

// The document catalog, catalog<ext> beside the index file, maps URIs to
// document ids and content hashes (REF §1.3). Folio reads it with the index
// and caches it, as Vectra does, and publishes a new one with every commit
// that changed documents; a published catalog is never modified (readers
// use it without locks), a batch works on a copy (a fix over Vectra, whose
// copy shared its maps with the committed catalog).
//
// # Crash consistency
//
// The index file and the catalog are two files, written one after the
// other; no order makes a pair of single writes atomic. Folio keeps them
// consistent instead under one invariant, checked on every read:
//
//	a catalog entry with a content hash has all of its chunks in the index.
//
// A commit that changes documents writes, in this order:
//
//  1. the new documents' "<id>.txt" and "<id><ext>" files, under new ids
//     (a changed document gets a new id, so the old version's files are
//     never overwritten), all at once;
//  2. the catalog with the new URI → id mappings but without the content
//     hashes of the documents added or replaced in the commit;
//  3. the index file;
//  4. the catalog again, with those hashes, when there are any;
//  5. after the commit, the files of replaced and deleted documents are
//     removed.
//
// A crash after step 2 but before step 4 leaves documents registered
// without a hash: they are not skipped as unchanged, so upserting them again
// re-embeds them, as it does a document of a pre-0.15 Vectra catalog. Chunk
// items whose documentId is not in the catalog (the old version of a
// replaced document, after a crash between steps 2 and 3) are ignored by
// QueryDocuments and ListDocuments, and removed, with their document's
// files, by the next document write. A crash before step 2 or after step 4
// leaves files no catalog entry names, which nothing reads. Vectra opens
// every state: its catalog and index formats are unchanged.

// docPending is the document side of the open batch: its working copy of
// the catalog, the files it will write and the files it made obsolete. A
// LocalDocumentIndex has one from the batch's first document write to its
// commit or cancel, guarded by the index's writer lock.
type docPending struct {
	cat DocumentCatalog
	// fresh holds the URIs whose id this batch set: their hashes are
	// written only once the index file is (step 4).
	fresh map[string]bool
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
	// wrote is set once step 2 has tried to write the catalog.
	wrote bool
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

// validDocumentID reports whether id can name files in the index folder:
// "<id>.txt" stays inside it. Vectra's ids are uuids.
func validDocumentID(id string) bool {
	return id != "" && !strings.Contains(id, "/") && isInsideRelPath(id+".txt")
}

// catalogPath is the catalog's storage path.
func (d *LocalDocumentIndex) catalogPath() string { return d.path("catalog" + d.Codec().Extension()) }

// catalog returns the committed catalog, loading the index and the catalog
// on first use. Its error names op and key, the caller's own argument.
func (d *LocalDocumentIndex) catalog(ctx context.Context, op, key string) (*DocumentCatalog, error) {
	if c := d.cat.Load(); c != nil && d.cur.Load() != nil {
		return c, nil
	}
	if err := d.mu.lock(ctx); err != nil {
		return nil, err
	}
	defer d.mu.Unlock()
	c, err := d.catalogLocked(ctx)
	if err != nil {
		return nil, wrapOp(op, key, err)
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
	return d.loadCatalogLocked(ctx, s)
}

// loadCatalogLocked reads the catalog of the index whose last commit is s
// and publishes it. A missing catalog is created and written at once, as
// Vectra does (so IsCatalogCreated is true after any read), when the index
// is empty; beside an index that holds items it is ErrNotDocumentIndex: the
// folder holds a plain index, which a document index must not write into.
func (d *LocalDocumentIndex) loadCatalogLocked(ctx context.Context, s *snapshot) (*DocumentCatalog, error) {
	p := d.catalogPath()
	raw, err := d.Storage().ReadFile(ctx, p)
	var c *DocumentCatalog
	switch {
	case errors.Is(err, fs.ErrNotExist) && s.len() > 0:
		return nil, fmt.Errorf("no document catalog %q beside an index of %d items: %w", p, s.len(), ErrNotDocumentIndex)
	case errors.Is(err, fs.ErrNotExist):
		c = initialCatalog()
		if err := d.writeCatalog(ctx, c); err != nil {
			return nil, fmt.Errorf("create document catalog %q: %w", p, err)
		}
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
	d.cat.Store(c)
	return c, nil
}

// hookLoaded runs when the index file is read: it loads the catalog (so
// that a plain index is refused before anything uses it) and makes the
// chunk keys of every chunk item inline.
func (d *LocalDocumentIndex) hookLoaded(ctx context.Context, s *snapshot) error {
	if d.cat.Load() == nil {
		if _, err := d.loadCatalogLocked(ctx, s); err != nil {
			return err
		}
	}
	return d.inlineChunkKeys(ctx, s)
}

// inlineChunkKeys copies documentId, startPos and endPos from the side-car
// into the inline metadata of every item of s that has a side-car and not
// those keys inline. Folio keeps them inline when it writes chunks; Vectra,
// in an index with indexed metadata, keeps them only in side-cars, where
// the engine (the keyword index, document grouping, replacing a document)
// cannot see them. A side-car that cannot be read is logged and its item
// left as it is, as a query would only fail on it if it were returned.
func (d *LocalDocumentIndex) inlineChunkKeys(ctx context.Context, s *snapshot) error {
	var todo []int
	for i, f := range s.files {
		if f == "" {
			continue
		}
		if _, ok := chunkDocumentID(s.meta[i]); !ok {
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
			found[j], errs[j] = d.readSidecar(ctx, s.files[i])
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for j, i := range todo {
		if errs[j] != nil {
			d.log.Warn("core: read chunk keys from metadata file", "folder", d.FolderPath(), "item", s.ids[i], "err", errs[j])
			continue
		}
		if _, ok := chunkDocumentID(found[j]); !ok {
			continue
		}
		md := make(Metadata, len(s.meta[i])+len(reservedChunkKeys))
		maps.Copy(md, s.meta[i])
		for _, k := range reservedChunkKeys {
			md[k] = found[j][k]
		}
		s.meta[i] = md
	}
	return nil
}

// checkCatalog fills in missing maps and refuses ids that would leave the
// folder (ErrCorrupt).
func checkCatalog(c DocumentCatalog) (*DocumentCatalog, error) {
	if c.URIToID == nil {
		c.URIToID = map[string]string{}
	}
	if c.IDToURI == nil {
		c.IDToURI = map[string]string{}
	}
	for id := range c.IDToURI {
		if !validDocumentID(id) {
			return nil, fmt.Errorf("document id %q leaves the index folder: %w", id, ErrCorrupt)
		}
	}
	for _, id := range c.URIToID {
		if !validDocumentID(id) {
			return nil, fmt.Errorf("document id %q leaves the index folder: %w", id, ErrCorrupt)
		}
	}
	return &c, nil
}

// writeCatalog writes c as the catalog file.
func (d *LocalDocumentIndex) writeCatalog(ctx context.Context, c *DocumentCatalog) error {
	raw, err := d.Codec().SerializeCatalog(*c)
	if err != nil {
		return fmt.Errorf("serialize document catalog: %w", err)
	}
	return d.Storage().UpsertFile(ctx, d.catalogPath(), raw)
}

// pendingLocked returns the open batch's catalog copy, making it on first
// use. The writer lock is held and a batch is open.
func (d *LocalDocumentIndex) pendingLocked(committed *DocumentCatalog) *docPending {
	if d.pending == nil {
		d.pending = &docPending{cat: cloneCatalog(committed), fresh: map[string]bool{}, texts: map[string]string{}}
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

// The commit hooks of LocalIndex run with its writer lock held.

func (d *LocalDocumentIndex) hookBegin() { d.pending = nil }

// hookBeforeSave writes the new documents' files (step 1) and the catalog
// without the new hashes (step 2).
func (d *LocalDocumentIndex) hookBeforeSave(ctx context.Context) error {
	p := d.pending
	if p == nil {
		return nil
	}
	if err := d.writeFiles(ctx, p.files); err != nil {
		return fmt.Errorf("save document files: %w", err)
	}
	pre := p.cat
	if len(p.fresh) > 0 && p.cat.URIToHash != nil {
		pre.URIToHash = maps.Clone(p.cat.URIToHash)
		for uri := range p.fresh {
			delete(pre.URIToHash, uri)
		}
	}
	// Set before the write: a failed write may still have landed, and a
	// cancel must then put the committed catalog back.
	p.wrote = true
	if err := d.writeCatalog(ctx, &pre); err != nil {
		return fmt.Errorf("save document catalog %q: %w", d.catalogPath(), err)
	}
	return nil
}

// writeFiles writes the files not written yet as one group (writeGroup)
// and marks them written.
func (d *LocalDocumentIndex) writeFiles(ctx context.Context, files []*docFile) error {
	var todo []*docFile
	var group []FileWrite
	for _, f := range files {
		if !f.written {
			f.tried = true
			todo = append(todo, f)
			group = append(group, FileWrite{Path: d.path(f.name), Content: f.content})
		}
	}
	if err := writeGroup(ctx, d.Storage(), group); err != nil {
		return err
	}
	for _, f := range todo {
		f.written = true
	}
	return nil
}

// hookAfterSave writes the catalog with its hashes (step 4) and publishes
// it. The index file is written: a failure here only costs the skip of
// unchanged documents until the next commit writes the catalog, so it is
// logged, not returned.
func (d *LocalDocumentIndex) hookAfterSave(ctx context.Context) error {
	p := d.pending
	if p == nil {
		return nil
	}
	if len(p.fresh) > 0 {
		if err := d.writeCatalog(ctx, &p.cat); err != nil {
			d.log.Warn("core: save document catalog hashes", "path", d.catalogPath(), "err", err)
		}
	}
	c := p.cat
	d.cat.Store(&c)
	d.obsolete = append(d.obsolete, p.obsolete...)
	d.forgetTexts(p.texts)
	d.pending = nil
	return nil
}

// hookCancel removes the files the batch wrote and, when step 2 wrote the
// catalog, puts the committed one back, less the hashes of the documents
// the batch replaced or deleted.
func (d *LocalDocumentIndex) hookCancel() {
	p := d.pending
	if p == nil {
		return
	}
	d.pending = nil
	ctx := context.Background()
	var written []string
	for _, f := range p.files {
		if f.written || f.tried {
			written = append(written, f.name)
		}
	}
	d.removeFiles(ctx, written)
	d.forgetTexts(p.texts)
	if p.wrote {
		if c := d.cat.Load(); c != nil {
			// The failed index write may have landed: the documents
			// this batch replaced or deleted go back without their
			// hashes, so that the invariant holds whichever index file
			// is on disk.
			back := cloneCatalog(c)
			for uri := range c.URIToHash {
				if p.cat.URIToID[uri] != c.URIToID[uri] {
					delete(back.URIToHash, uri)
				}
			}
			if err := d.writeCatalog(ctx, &back); err != nil {
				d.log.Warn("core: restore document catalog", "path", d.catalogPath(), "err", err)
			}
		}
	}
}

// removeFiles deletes files of the index folder, logging failures, and
// returns the failures by file name.
func (d *LocalDocumentIndex) removeFiles(ctx context.Context, names []string) map[string]error {
	var failed map[string]error
	for _, name := range names {
		if err := d.Storage().DeleteFile(ctx, d.path(name)); err != nil {
			d.log.Warn("core: remove document file", "folder", d.FolderPath(), "file", name, "err", err)
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

// chunkDocumentID returns the documentId of a chunk item, as JavaScript's
// String() writes it; ok is false for items that are not chunks (without
// documentId, startPos or endPos).
func chunkDocumentID(md Metadata) (string, bool) {
	id, ok := md["documentId"]
	if !ok || id == nil {
		return "", false
	}
	if _, ok := md["startPos"]; !ok {
		return "", false
	}
	if _, ok := md["endPos"]; !ok {
		return "", false
	}
	switch x := id.(type) {
	case string:
		return x, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		return string(hashAppendNumber(nil, x)), true
	}
	return "", false
}
