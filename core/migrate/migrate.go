// Package migrate detects an index folder's codec and converts an index
// from one codec to another, over injected codecs and storage. The root
// package offers Vectra's shapes: folio.DetectCodec(ctx, folder, storage)
// and folio.MigrateIndex(ctx, folder, folio.MigrateOptions{To: "protobuf"}).
package migrate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/internal/share"
	"github.com/foliovec/folio/core/pathutil"
)

// DetectCodec returns the codec among codecs whose index file
// ("index" + its extension), or segments manifest (that name +
// ".segments", the segmented layout), exists in folderPath. Custom index names are
// never detected, as in Vectra. Codecs sharing an extension count once, the
// first one given winning.
//
// When the index files of two codecs exist the error wraps
// [core.ErrPartiallyMigrated]; when none exists, [ErrIndexNotFound]; with no
// codecs or a nil storage, [ErrInvalidArgument].
func DetectCodec(ctx context.Context, folderPath string, storage core.FileStorage, codecs ...core.IndexCodec) (core.IndexCodec, error) {
	const op = "detect codec"
	if storage == nil || len(codecs) == 0 || slices.Contains(codecs, nil) {
		return nil, fmt.Errorf("%s in %q: a storage and at least one codec are required: %w", op, folderPath, core.ErrInvalidArgument)
	}
	var distinct []core.IndexCodec
	seen := map[string]bool{}
	for _, c := range codecs {
		if ext := c.Extension(); !seen[ext] {
			seen[ext] = true
			distinct = append(distinct, c)
		}
	}
	// Each codec's files are looked for at once: on storage far away (a
	// web host) each look is a round trip.
	layouts, errs := make([]core.Layout, len(distinct)), make([]error, len(distinct))
	var wg sync.WaitGroup
	for i, c := range distinct {
		wg.Go(func() { layouts[i], errs[i] = detectLayout(ctx, folderPath, storage, c) })
	}
	wg.Wait()
	var found []core.IndexCodec
	for i, c := range distinct {
		if errs[i] != nil {
			return nil, core.WrapOp(ctx, "detect codec in", folderPath, errs[i])
		}
		if layouts[i] != "" {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		names := make([]string, 0, len(seen))
		for _, c := range codecs {
			if n := indexFileName(c); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		return nil, fmt.Errorf("%s in %q: no index file found (expected %s): %w",
			op, folderPath, strings.Join(names, " or "), core.ErrIndexNotFound)
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, c := range found {
		names[i] = indexFileName(c)
	}
	return nil, fmt.Errorf("%s in %q: found %s; run the migration again to complete it: %w",
		op, folderPath, strings.Join(names, " and "), core.ErrPartiallyMigrated)
}

// DetectLayout returns the layout of the index of codec c in folderPath:
// core.LayoutSegmented when its segments manifest ("index" + extension +
// ".segments") exists, else core.LayoutFile when its index file does; a
// missing index is ErrIndexNotFound.
func DetectLayout(ctx context.Context, folderPath string, storage core.FileStorage, c core.IndexCodec) (core.Layout, error) {
	layout, err := detectLayout(ctx, folderPath, storage, c)
	if err != nil {
		return "", core.WrapOp(ctx, "detect layout in", folderPath, err)
	}
	if layout == "" {
		return "", fmt.Errorf("detect layout in %q: no %s or its segments: %w", folderPath, indexFileName(c), core.ErrIndexNotFound)
	}
	return layout, nil
}

// detectLayout is DetectLayout with "" for no index.
func detectLayout(ctx context.Context, folderPath string, storage core.FileStorage, c core.IndexCodec) (core.Layout, error) {
	for _, l := range []struct {
		name   string
		layout core.Layout
	}{{indexFileName(c) + ".segments", core.LayoutSegmented}, {indexFileName(c), core.LayoutFile}} {
		ok, err := storage.PathExists(ctx, pathutil.Join(folderPath, l.name))
		if err != nil || ok {
			return l.layout, err
		}
	}
	return "", nil
}

// Layout converts the index of codec c in folderPath to layout (see
// core.LocalIndex.ConvertLayout), with opts (Storage and Codec are set
// here). An index already on that layout is left alone.
func Layout(ctx context.Context, folderPath string, c core.IndexCodec, storage core.FileStorage, layout core.Layout, opts core.IndexOptions) error {
	opts.Storage, opts.Codec, opts.IndexName = storage, c, ""
	ix, err := core.NewLocalIndex(folderPath, opts)
	if err != nil {
		return err
	}
	return ix.ConvertLayout(ctx, layout)
}

// Index converts the index in folderPath from one codec to another:
// the index file, item side-car files, and, in a document index, the
// catalog and the document metadata files. Document text files are left as
// they are. Migrating to the codec the index already uses does nothing.
//
// Fix over Vectra: the migration is safe to interrupt and resumable. It
// writes every new file first — side-cars, document metadata, the catalog,
// and last of these the new index file — and only then deletes the old
// files, the old index file last. Until the new index file exists the old
// index and its files are untouched; from then on the new index and all its
// files are complete. Running Index again after an interruption at
// any point finishes the job: while the old index file exists it is the
// source, and files already converted and deleted are recognised; once only
// the new index file exists, there is nothing left to do.
//
// Fix over Vectra: a side-car whose name does not end with the source
// extension is converted too (its new name is its old name plus the new
// extension) instead of being deleted and left dangling. Names read from the
// files — side-car names, document ids — are checked before they become
// paths: one that would leave the folder, or a new name that would
// overwrite a file the migration still needs, fails with [ErrCorrupt]
// before anything is written.
//
// On storage that offers [FolderLocker], the migration holds the folder's
// lock from start to end, so no commit of another process interleaves
// with it.
//
// Errors: [ErrIndexNotFound] when neither codec's index file exists;
// [ErrInvalidArgument] for nil codecs or storage; [ErrCorrupt] for files
// that do not decode; storage errors (a missing side-car wraps
// fs.ErrNotExist) and context errors as they come.
func Index(ctx context.Context, folderPath string, from, to core.IndexCodec, storage core.FileStorage) error {
	if from == nil || to == nil || storage == nil {
		return fmt.Errorf("migrate index in %q: codecs and storage are required: %w", folderPath, core.ErrInvalidArgument)
	}
	m := &migration{ctx: ctx, folder: folderPath, from: from, to: to, storage: storage}
	if from.Extension() != to.Extension() {
		unlock, err := share.Lock(ctx, storage, folderPath)
		if err != nil {
			return core.WrapOp(ctx, "migrate index in", folderPath, err)
		}
		defer unlock()
	}
	if err := m.run(); err != nil {
		return core.WrapOp(ctx, "migrate index from "+from.Extension()+" to "+to.Extension()+" in", folderPath, err)
	}
	return nil
}

// indexFileName is the index file a codec's detection looks for.
func indexFileName(c core.IndexCodec) string { return "index" + c.Extension() }

// catalogFileName is the catalog file of a document index.
func catalogFileName(c core.IndexCodec) string { return "catalog" + c.Extension() }

// migration is one run of Index.
type migration struct {
	ctx      context.Context
	folder   string
	from, to core.IndexCodec
	storage  core.FileStorage

	// Files written for the new codec, and old files to delete once the
	// new index file is written, in order.
	written  map[string]bool
	obsolete []string
}

// conversion is one metadata file to convert: src in the old codec, dst in
// the new. doc marks document metadata, which a document may lack; an
// item's side-car must exist.
type conversion struct {
	src, dst string
	doc      bool
}

func (m *migration) run() error {
	oldIndex, newIndex := indexFileName(m.from), indexFileName(m.to)
	haveOld, err := m.exists(oldIndex)
	if err != nil {
		return err
	}
	if !haveOld {
		haveNew, err := m.exists(newIndex)
		if err != nil {
			return err
		}
		if haveNew {
			// Already migrated, or interrupted after the old index file,
			// deleted last, was gone: nothing is left to do.
			return nil
		}
		return fmt.Errorf("no index file found (expected %s or %s): %w", oldIndex, newIndex, core.ErrIndexNotFound)
	}
	if m.from.Extension() == m.to.Extension() {
		return nil
	}

	data, err := m.readIndex(oldIndex)
	if err != nil {
		return err
	}
	sidecars, data, err := m.planSidecars(data)
	if err != nil {
		return err
	}
	docs, catalog, err := m.planCatalog()
	if err != nil {
		return err
	}
	if err := m.checkNames(slices.Concat(sidecars, docs)); err != nil {
		return err
	}

	// Write everything new; the old index stays complete throughout.
	m.written = map[string]bool{}
	for _, c := range slices.Concat(sidecars, docs) {
		if err := m.convertMetadata(c); err != nil {
			return err
		}
	}
	if catalog != nil {
		if err := m.write(catalogFileName(m.to), func() ([]byte, error) { return m.to.SerializeCatalog(*catalog) }); err != nil {
			return err
		}
		m.obsolete = append(m.obsolete, catalogFileName(m.from))
	}
	if err := m.write(newIndex, func() ([]byte, error) { return m.to.SerializeIndex(data) }); err != nil {
		return err
	}

	// The new index is complete: delete the old files, the old index last.
	for _, name := range append(m.obsolete, oldIndex) {
		if m.written[name] {
			continue // never delete a file this run wrote
		}
		if err := m.storage.DeleteFile(m.ctx, m.path(name)); err != nil {
			return fmt.Errorf("delete %s: %w", name, err)
		}
	}
	return nil
}

func (m *migration) path(name string) string { return pathutil.Join(m.folder, name) }

func (m *migration) exists(name string) (bool, error) {
	ok, err := m.storage.PathExists(m.ctx, m.path(name))
	if err != nil {
		return false, fmt.Errorf("probe %s: %w", name, err)
	}
	return ok, nil
}

func (m *migration) readIndex(name string) (core.IndexData, error) {
	raw, err := m.storage.ReadFile(m.ctx, m.path(name))
	if err != nil {
		return core.IndexData{}, fmt.Errorf("read %s: %w", name, err)
	}
	data, err := m.from.DeserializeIndex(raw)
	if err != nil {
		return core.IndexData{}, fmt.Errorf("decode %s: %w", name, errCorrupt(err))
	}
	return data, nil
}

// errCorrupt makes sure a decoding failure wraps ErrCorrupt.
func errCorrupt(err error) error {
	if errors.Is(err, core.ErrCorrupt) {
		return err
	}
	return fmt.Errorf("%w: %w", err, core.ErrCorrupt)
}

// planSidecars validates the items' side-car names and returns the
// conversions, with a copy of data whose items name the new side-cars.
func (m *migration) planSidecars(data core.IndexData) ([]conversion, core.IndexData, error) {
	var plan []conversion
	items := slices.Clone(data.Items)
	planned := map[string]bool{}
	for i := range items {
		src := items[i].MetadataFile
		if src == "" {
			continue
		}
		if !pathutil.IsLocal(src) {
			return nil, core.IndexData{}, fmt.Errorf("item %q: metadataFile %q leaves the index folder: %w", items[i].ID, src, core.ErrCorrupt)
		}
		dst := strings.TrimSuffix(src, m.from.Extension()) + m.to.Extension()
		if !strings.HasSuffix(src, m.from.Extension()) {
			// Vectra skips these and then deletes them; keep the whole
			// name so the new one can never be the old one.
			dst = src + m.to.Extension()
		}
		items[i].MetadataFile = dst
		if !planned[src] {
			planned[src] = true
			plan = append(plan, conversion{src: src, dst: dst})
		}
	}
	data.Items = items
	return plan, data, nil
}

// planCatalog reads the old catalog, if any, and returns the document
// metadata conversions and the catalog to write. An old catalog already
// deleted by an interrupted run means the new one is complete.
func (m *migration) planCatalog() ([]conversion, *core.DocumentCatalog, error) {
	name := catalogFileName(m.from)
	raw, err := m.storage.ReadFile(m.ctx, m.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", name, err)
	}
	catalog, err := m.from.DeserializeCatalog(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("decode %s: %w", name, errCorrupt(err))
	}
	ids := make([]string, 0, len(catalog.IDToURI))
	for id := range catalog.IDToURI {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var plan []conversion
	for _, id := range ids {
		if !pathutil.IsLocal(id) || strings.Contains(id, "/") {
			return nil, nil, &core.Error{Op: "read", Key: name, Err: fmt.Errorf("document id %q is not a plain file name: %w", id, core.ErrCorrupt)}
		}
		plan = append(plan, conversion{src: id + m.from.Extension(), dst: id + m.to.Extension(), doc: true})
	}
	return plan, &catalog, nil
}

// checkNames makes sure no new file overwrites a file the migration reads
// or writes otherwise: another conversion's source, a different
// conversion's destination, or an index or catalog file.
func (m *migration) checkNames(plan []conversion) error {
	reserved := map[string]string{
		indexFileName(m.from):   "the old index file",
		indexFileName(m.to):     "the new index file",
		catalogFileName(m.from): "the old catalog file",
		catalogFileName(m.to):   "the new catalog file",
	}
	srcOf := map[string]string{}
	for _, c := range plan {
		if what, ok := reserved[c.src]; ok {
			return fmt.Errorf("metadata file %q is %s: %w", c.src, what, core.ErrCorrupt)
		}
		reserved[c.src] = fmt.Sprintf("the metadata file %q", c.src)
	}
	for _, c := range plan {
		if prev, ok := srcOf[c.dst]; ok && prev != c.src {
			return fmt.Errorf("metadata files %q and %q would both become %q: %w", prev, c.src, c.dst, core.ErrCorrupt)
		}
		srcOf[c.dst] = c.src
		if what, ok := reserved[c.dst]; ok {
			return fmt.Errorf("metadata file %q would become %q, which is %s: %w", c.src, c.dst, what, core.ErrCorrupt)
		}
	}
	return nil
}

// convertMetadata writes c.dst from c.src and marks c.src for deletion. A
// missing source whose destination exists was converted by an interrupted
// run; a document metadata file missing in both places is a document
// without metadata; an item side-car missing in both places fails.
func (m *migration) convertMetadata(c conversion) error {
	raw, err := m.storage.ReadFile(m.ctx, m.path(c.src))
	if errors.Is(err, fs.ErrNotExist) {
		done, perr := m.exists(c.dst)
		if perr != nil {
			return perr
		}
		if done || c.doc {
			return nil
		}
		return fmt.Errorf("read metadata file %s: %w", c.src, err)
	}
	if err != nil {
		return fmt.Errorf("read metadata file %s: %w", c.src, err)
	}
	md, err := m.from.DeserializeMetadata(raw)
	if err != nil {
		return fmt.Errorf("decode metadata file %s: %w", c.src, errCorrupt(err))
	}
	if err := m.write(c.dst, func() ([]byte, error) { return m.to.SerializeMetadata(md) }); err != nil {
		return err
	}
	m.obsolete = append(m.obsolete, c.src)
	return nil
}

// write encodes and writes one new file.
func (m *migration) write(name string, encode func() ([]byte, error)) error {
	if err := m.ctx.Err(); err != nil {
		return err
	}
	raw, err := encode()
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	if err := m.storage.UpsertFile(m.ctx, m.path(name), raw); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	m.written[name] = true
	return nil
}
