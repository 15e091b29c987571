package watch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/foliovec/folio/core"
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

// under reports whether p is dir or lies below it.
func under(p, dir string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
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

// missing reports whether err says a path does not exist (also when a
// component of it is a file).
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
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
		if under(uri, dir) {
			return true
		}
	}
	return false
}

// collect walks paths (folders recursively, in name order, each real
// folder once, following symbolic links) and returns the files to sync.
// Unreadable entries go to OnError.
func (w *FolderWatcher) collect(ctx context.Context, paths []string) (collection, error) {
	s := scan{w: w, ctx: ctx, seen: map[string]bool{}}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return s.c, err
		}
		info, err := os.Stat(p)
		switch {
		case err != nil:
			if !missing(err) {
				w.reportError(err, p)
				s.c.unreadable = append(s.c.unreadable, p)
			}
		case info.IsDir():
			s.folder(p)
		case info.Mode().IsRegular() && w.wants(p):
			s.c.files = append(s.c.files, p)
		}
	}
	return s.c, ctx.Err()
}

// scan is one collect's walk.
type scan struct {
	w    *FolderWatcher
	ctx  context.Context
	seen map[string]bool // real paths of the folders walked
	c    collection
}

func (s *scan) folder(dir string) {
	if s.ctx.Err() != nil || (s.w.skip != "" && under(dir, s.w.skip)) {
		return
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		if !missing(err) {
			s.w.reportError(err, dir)
			s.c.unreadable = append(s.c.unreadable, dir)
		}
		return
	}
	if s.seen[real] {
		return
	}
	s.seen[real] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !missing(err) {
			s.w.reportError(err, dir)
			s.c.unreadable = append(s.c.unreadable, dir)
		}
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if s.w.skip != "" && under(p, s.w.skip) {
			continue
		}
		// The entry's type comes with the listing: only a symbolic link
		// needs a stat, to learn what it points to.
		switch t := e.Type(); {
		case t.IsRegular():
			if s.w.wants(p) {
				s.c.files = append(s.c.files, p)
			}
			continue
		case t.IsDir():
			s.folder(p)
			continue
		case t&fs.ModeSymlink == 0:
			continue // FIFOs, sockets, devices are not documents
		}
		info, err := os.Stat(p)
		switch {
		case err != nil:
			if !missing(err) { // a dangling link is no file
				s.w.reportError(err, p)
				s.c.unreadable = append(s.c.unreadable, p)
			}
		case info.IsDir():
			s.folder(p)
		case info.Mode().IsRegular() && s.w.wants(p):
			s.c.files = append(s.c.files, p)
		}
	}
}
