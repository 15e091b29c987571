package watch

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/filetree"
	"github.com/foliovec/folio/core/pathutil"
)

// resolveRoots returns the configured paths as core.LocalFileURI spells
// them (absolute, symbolic links resolved when they exist), so that the
// files below them get the URIs the CLI's add gives them.
func (w *FolderWatcher) resolveRoots() []string {
	roots := make([]string, 0, len(w.cfg.Paths))
	for _, p := range w.cfg.Paths {
		if abs, err := core.LocalFileURI(p); err == nil {
			roots = append(roots, abs)
		}
	}
	return roots
}

// indexFolder returns folder (the index's) as an absolute path, with
// symbolic links resolved when it exists.
func indexFolder(folder string) string {
	abs, err := filepath.Abs(folder)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs
}

// wants reports whether the file at p is synced: it matches the extension
// filter and is not binary by its extension (a binary extension named in
// Options.Extensions is synced).
func (w *FolderWatcher) wants(p string) bool {
	ext := strings.ToLower(pathutil.Extname(p))
	if w.exts != nil {
		return w.exts[ext]
	}
	return !core.LooksBinary(p, nil)
}

// collection is what a scan found.
type collection struct {
	files []string // the files to sync, in walk order
	// unreadable are folders that could not be listed: documents below
	// them are kept, not deleted as gone.
	unreadable []string
}

// kept reports whether a document at uri must be kept although the scan
// did not find its file: it lies below a folder the scan could not read.
func (c *collection) kept(uri string) bool {
	for _, dir := range c.unreadable {
		if filetree.Under(uri, dir) {
			return true
		}
	}
	return false
}

// walkOptions are the rules of every walk of the watcher: inside the
// watched paths (roots, resolved) unless FollowLinks, never into the
// index's folder.
func (w *FolderWatcher) walkOptions(roots []string) *filetree.Options {
	return &filetree.Options{
		FollowLinks: w.cfg.FollowLinks,
		Inside:      roots,
		Exclude:     func(p string) bool { return w.skip != "" && filetree.Under(p, w.skip) },
	}
}

// collect walks paths (folders recursively, in name order, each real
// folder and file once, inside the watched paths unless FollowLinks; see
// filetree.Walk) and returns the files to sync. Unreadable entries go to
// OnError, links leading out to OnSkip.
func (w *FolderWatcher) collect(ctx context.Context, paths []string) (collection, error) {
	var c collection
	opts := w.walkOptions(w.resolveRoots())
	seen := map[string]bool{} // a file two paths reach is synced once
	for _, p := range paths {
		err := filetree.Walk(ctx, p, opts, func(e filetree.Entry) error {
			switch {
			case e.Err == nil:
				if !seen[e.Path] && w.wants(e.Path) {
					seen[e.Path] = true
					c.files = append(c.files, e.Path)
				}
			case errors.Is(e.Err, filetree.ErrOutsideTree):
				w.reportSkip(e.Path, e.Err)
			case errors.Is(e.Err, filetree.ErrNotRegular):
				// FIFOs, sockets, devices are not documents
			default:
				w.reportError(e.Err, e.Path)
				c.unreadable = append(c.unreadable, e.Path)
			}
			return nil
		})
		switch {
		case ctx.Err() != nil:
			return c, ctx.Err()
		case err != nil && !filetree.Missing(err):
			w.reportError(err, p)
			c.unreadable = append(c.unreadable, p)
		}
	}
	return c, ctx.Err()
}
