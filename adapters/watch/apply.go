package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/filetree"
	"github.com/foliovec/folio/core/jsvalue"
	"github.com/foliovec/folio/core/pathutil"
)

// Limits of one UpsertDocuments call of a sync: files are read and
// committed in groups of at most this many files and bytes, so a large
// tree is neither held in memory at once nor committed file by file.
const (
	groupFiles = 1000
	groupBytes = 32 << 20
)

// syncAll syncs every watched path. The caller holds writeMu.
func (w *FolderWatcher) syncAll(ctx context.Context) (int, error) {
	roots := w.resolveRoots()
	found, err := w.collect(ctx, roots)
	if err != nil {
		return 0, err
	}
	// Files outside the roots, reached through links FollowLinks
	// followed, are tracked too: the last sync's and this one's.
	outside := w.trackedOutside(roots)
	for _, f := range found.files {
		if !underAny(f, roots) {
			outside[f] = true
		}
	}
	indexed, err := w.indexedUnder(ctx, roots, outside)
	if err != nil {
		return 0, err
	}
	present := make(map[string]bool, len(found.files))
	for _, f := range found.files {
		present[f] = true
	}
	var gone []string
	for _, uri := range indexed {
		if !present[uri] && !found.kept(uri) {
			gone = append(gone, uri)
		}
	}
	n := w.deleteURIs(ctx, gone)
	m, err := w.upsertFiles(ctx, found.files)
	n += m
	if err != nil {
		return n, err
	}
	// What is tracked is what the index holds under the paths now.
	for _, uri := range gone {
		delete(outside, uri)
	}
	indexed, err = w.indexedUnder(ctx, roots, outside)
	if err != nil {
		return n, err
	}
	w.mu.Lock()
	w.tracked = make(map[string]struct{}, len(indexed))
	for _, uri := range indexed {
		w.tracked[uri] = struct{}{}
	}
	w.mu.Unlock()
	return n, nil
}

// trackedOutside returns the tracked URIs that lie outside roots.
func (w *FolderWatcher) trackedOutside(roots []string) map[string]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]bool{}
	for uri := range w.tracked {
		if !underAny(uri, roots) {
			out[uri] = true
		}
	}
	return out
}

// syncPaths syncs the paths events named: a file is upserted, a folder
// rescanned, a path that is gone deleted with everything tracked below
// it. A path that is a symbolic link is synced where it leads, when that
// is inside the watched paths or FollowLinks is set. The caller holds
// writeMu.
func (w *FolderWatcher) syncPaths(ctx context.Context, paths []string) (int, error) {
	roots := w.resolveRoots()
	var files, gone []string
	for _, p := range paths {
		real, err := filepath.EvalSymlinks(p)
		var info os.FileInfo
		if err == nil {
			info, err = os.Stat(real)
		}
		switch {
		case err != nil && filetree.Missing(err):
			gone = append(gone, w.trackedUnder(p)...)
		case err != nil:
			w.reportError(err, p)
		case !w.cfg.FollowLinks && !underAny(real, roots):
			// A link leading out: whatever p held before is gone.
			w.reportSkip(p, &filetree.LinkError{Link: p, Target: real})
			gone = append(gone, w.trackedUnder(p)...)
		case info.IsDir():
			found, err := w.collect(ctx, []string{real})
			if err != nil {
				return 0, err
			}
			files = append(files, found.files...)
			present := make(map[string]bool, len(found.files))
			for _, f := range found.files {
				present[f] = true
			}
			for _, uri := range w.trackedUnder(real) {
				if !present[uri] && !found.kept(uri) {
					gone = append(gone, uri)
				}
			}
		case info.Mode().IsRegular() && w.wants(real) && !filetree.Under(real, w.skip):
			files = append(files, real)
		}
	}
	slices.Sort(files)
	files = slices.Compact(files)
	slices.Sort(gone)
	gone = slices.Compact(gone)
	n := w.deleteURIs(ctx, gone)
	m, err := w.upsertFiles(ctx, files)
	return n + m, err
}

// underAny reports whether p is one of dirs or lies below one.
func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if filetree.Under(p, d) {
			return true
		}
	}
	return false
}

// indexedUnder returns the URIs of the index's documents under roots, and
// those in also.
func (w *FolderWatcher) indexedUnder(ctx context.Context, roots []string, also map[string]bool) ([]string, error) {
	uris, err := w.cfg.Index.DocumentURIs(ctx)
	if err != nil {
		return nil, err
	}
	out := uris[:0]
	for _, uri := range uris {
		if also[uri] || underAny(uri, roots) {
			out = append(out, uri)
		}
	}
	return out, nil
}

// trackedUnder returns the tracked URIs that are p or lie below it.
func (w *FolderWatcher) trackedUnder(p string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for uri := range w.tracked {
		if filetree.Under(uri, p) {
			out = append(out, uri)
		}
	}
	return out
}

// deleteURIs deletes the documents at uris in one commit (a folder
// renamed away takes its thousands of documents in one rewrite of the
// index) and returns how many it deleted; a failure goes to OnError.
func (w *FolderWatcher) deleteURIs(ctx context.Context, uris []string) int {
	if len(uris) == 0 || ctx.Err() != nil {
		return 0
	}
	removed, err := w.cfg.Index.DeleteDocuments(ctx, uris)
	if err != nil {
		if ctx.Err() == nil {
			w.reportError(fmt.Errorf("delete %d documents: %w", len(uris), err), uris[0])
		}
		return 0
	}
	w.mu.Lock()
	for _, uri := range uris {
		delete(w.tracked, uri)
	}
	w.mu.Unlock()
	for _, uri := range removed {
		w.reportSync(uri, SyncDeleted)
	}
	return len(removed)
}

// upsertFiles reads files and upserts them in groups, reporting each added
// or updated document (an unchanged one is skipped by its content hash and
// not reported); it returns how many it added or updated.
func (w *FolderWatcher) upsertFiles(ctx context.Context, files []string) (int, error) {
	n := 0
	for len(files) > 0 {
		docs, rest := w.readGroup(files)
		files = rest
		m, err := w.upsertGroup(ctx, docs)
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, ctx.Err()
}

// readWave is how many files readGroup reads at once: file reads are
// mostly waiting on the kernel, so a few in flight overlap well.
const readWave = 32

// readGroup reads files from the start of files until a group is full and
// returns the documents read and the files left. Files are read readWave
// at a time, in parallel. Unreadable files go to OnError, binary ones (a
// NUL byte near the start) and those over MaxFileBytes are skipped unread
// and go to OnSkip, files gone meanwhile are left to the event their
// removal made.
func (w *FolderWatcher) readGroup(files []string) ([]core.DocumentInput, []string) {
	var docs []core.DocumentInput
	size := 0
	type read struct {
		content []byte
		err     error
	}
	var reads [readWave]read
	opts := &filetree.ReadOptions{MaxBytes: w.cfg.MaxFileBytes}
	for len(files) > 0 && len(docs) < groupFiles && size < groupBytes {
		wave := files[:min(len(files), readWave, groupFiles-len(docs))]
		files = files[len(wave):]
		var wg sync.WaitGroup
		for i, p := range wave {
			wg.Go(func() {
				content, err := filetree.ReadFile(p, opts)
				reads[i] = read{content, err}
			})
		}
		wg.Wait()
		for i, p := range wave {
			content, err := reads[i].content, reads[i].err
			reads[i] = read{}
			switch {
			case err == nil:
			case errors.Is(err, filetree.ErrBinary), errors.Is(err, filetree.ErrTooLarge):
				w.reportSkip(p, err)
				continue
			case !filetree.Missing(err):
				w.reportError(err, p)
				continue
			default:
				continue
			}
			size += len(content)
			docs = append(docs, core.DocumentInput{URI: p, Text: jsvalue.DecodeUTF8(content), DocType: docType(p)})
		}
	}
	return docs, files
}

// docType is Vectra's watcher's docType of a file: its extension without
// the dot, lowercased, or none.
func docType(p string) string {
	ext := pathutil.Extname(p)
	if len(ext) < 2 {
		return ""
	}
	return strings.ToLower(ext[1:])
}

// upsertGroup upserts docs in one UpsertDocuments call and reports what it
// did.
func (w *FolderWatcher) upsertGroup(ctx context.Context, docs []core.DocumentInput) (int, error) {
	if len(docs) == 0 {
		return 0, nil
	}
	before := make([]string, len(docs))
	for i, d := range docs {
		id, _, err := w.cfg.Index.GetDocumentID(ctx, d.URI)
		if err != nil {
			return 0, err
		}
		before[i] = id
	}
	stored, err := w.cfg.Index.UpsertDocuments(ctx, docs, &core.UpsertDocumentsOptions{BatchSize: len(docs)})
	if err != nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	n := 0
	for i, doc := range stored {
		uri := docs[i].URI
		switch {
		case doc == nil:
			if err != nil && !errors.Is(err, ctx.Err()) {
				w.reportError(err, uri)
			}
			continue
		}
		// Tracked before it is reported: OnSync sees it counted.
		w.mu.Lock()
		w.tracked[uri] = struct{}{}
		w.mu.Unlock()
		switch {
		case before[i] == doc.ID():
			// Unchanged: skipped by its content hash.
		case before[i] == "":
			w.reportSync(uri, SyncAdded)
			n++
		default:
			w.reportSync(uri, SyncUpdated)
			n++
		}
	}
	if ctx.Err() != nil {
		return n, ctx.Err()
	}
	return n, nil
}
