package fetch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/jsvalue"
	"github.com/foliovec/folio/core/pathutil"
)

// FileOptions configure a FileFetcher. The zero value is the default.
type FileOptions struct {
	// IncludeBinary reports binary files (core.LooksBinary: a binary
	// extension such as .png or .zip, or a NUL byte in the first 8 KiB) as
	// text too, as Vectra does. By default they are skipped.
	IncludeBinary bool
	// OnSkip, when set, is told of every file a Fetch does not report and
	// why: a binary file (ErrBinary), an entry that is neither a file nor a
	// folder (ErrNotRegular), or a file or folder below the walked folder
	// that cannot be read (the read's error); with OnSkip set, such a read
	// error no longer ends the walk. It is called from the goroutine that
	// called Fetch.
	OnSkip func(path string, reason error)
}

// FileFetcher reads a file, or every file below a folder, as Vectra's
// FileFetcher does:
//
//   - A missing path is a silent success: Fetch returns true without a
//     callback.
//   - A file is read as UTF-8 and reported under uri itself, its docType
//     the lowercased extension without the dot ("a.tar.gz" is "gz"), or,
//     when the name has no extension, the lowercased name ("Makefile" is
//     "makefile").
//   - A folder is walked recursively, each file reported under its path
//     (uri joined with the names below it, cleaned by filepath.Join).
//     Symbolic links are followed.
//
// Fixed over Vectra: a folder's entries are walked in name order, so the
// order is the same on every system; each real folder is walked once, so
// a symbolic link cycle ends; binary files are skipped unless
// FileOptions.IncludeBinary; entries that are neither files nor folders
// (FIFOs, sockets, devices) are skipped in a walk and an error when named
// by uri; invalid UTF-8 bytes read as U+FFFD.
//
// A FileFetcher is safe for concurrent use.
type FileFetcher struct {
	opts FileOptions
}

var _ core.TextFetcher = (*FileFetcher)(nil)

// NewFileFetcher returns a FileFetcher with opts; nil opts are the
// defaults.
func NewFileFetcher(opts *FileOptions) *FileFetcher {
	f := &FileFetcher{}
	if opts != nil {
		f.opts = *opts
	}
	return f
}

// ErrBinary is the reason OnSkip gives for a binary file.
var ErrBinary = errors.New("binary file")

// ErrNotRegular is the error of a Fetch whose uri names something that is
// neither a file nor a folder (a FIFO, a socket, a device).
var ErrNotRegular = errors.New("not a regular file or a folder")

// Fetch reports the file at uri, or every file below the folder at uri,
// to onDocument. See FileFetcher for the rules.
func (f *FileFetcher) Fetch(ctx context.Context, uri string, onDocument func(ctx context.Context, uri, text, docType string) (bool, error)) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("fetch %q: %w", uri, err)
	}
	info, err := os.Stat(uri)
	if err != nil {
		if missing(err) {
			return true, nil // as Vectra: a missing path is a silent success
		}
		return false, fmt.Errorf("fetch %q: %w", uri, err)
	}
	w := fileWalk{opts: f.opts, onDocument: onDocument, seen: make(map[string]bool)}
	var more bool
	switch {
	case info.IsDir():
		more, err = w.folder(ctx, uri)
	case info.Mode().IsRegular():
		more, err = w.file(ctx, uri)
	default:
		return false, fmt.Errorf("fetch %q: %w", uri, ErrNotRegular)
	}
	var stop stopError
	if errors.As(err, &stop) {
		err = stop.err
	}
	return more, err
}

// stopError carries an error of the onDocument callback up the walk: it
// ends the walk, OnSkip or not, and Fetch returns it unchanged.
type stopError struct{ err error }

func (e stopError) Error() string { return e.err.Error() }

func isStop(err error) bool {
	var stop stopError
	return errors.As(err, &stop)
}

// missing reports whether err says a path does not exist (also when a
// component of it is a file).
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// fileWalk is one Fetch's walk.
type fileWalk struct {
	opts       FileOptions
	onDocument func(ctx context.Context, uri, text, docType string) (bool, error)
	seen       map[string]bool // real paths of the folders walked
}

// folder walks dir in name order.
func (w *fileWalk) folder(ctx context.Context, dir string) (bool, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		if missing(err) {
			return true, nil // gone since it was listed
		}
		return false, fmt.Errorf("fetch %q: %w", dir, err)
	}
	if w.seen[real] {
		return true, nil
	}
	w.seen[real] = true
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return false, fmt.Errorf("fetch %q: %w", dir, err)
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return false, fmt.Errorf("fetch %q: %w", dir, err)
		}
		p := filepath.Join(dir, e.Name())
		info, err := os.Stat(p) // follows symbolic links
		if err != nil {
			if missing(err) {
				continue // a dangling link, or gone since it was listed
			}
			if w.opts.OnSkip != nil {
				w.opts.OnSkip(p, err)
				continue
			}
			return false, fmt.Errorf("fetch %q: %w", p, err)
		}
		var more bool
		switch {
		case info.IsDir():
			more, err = w.folder(ctx, p)
		case info.Mode().IsRegular():
			more, err = w.file(ctx, p)
		default:
			w.skip(p, ErrNotRegular) // FIFOs, sockets, devices are not documents
			continue
		}
		if err != nil && w.opts.OnSkip != nil && ctx.Err() == nil && !isStop(err) {
			w.opts.OnSkip(p, err)
			more, err = true, nil
		}
		if err != nil || !more {
			return false, err
		}
	}
	return true, nil
}

// skip tells OnSkip of a path not reported.
func (w *fileWalk) skip(p string, reason error) {
	if w.opts.OnSkip != nil {
		w.opts.OnSkip(p, reason)
	}
}

// file reports the file at p unless it is binary and binary files are
// skipped.
func (w *fileWalk) file(ctx context.Context, p string) (bool, error) {
	if !w.opts.IncludeBinary && core.LooksBinary(p, nil) {
		w.skip(p, ErrBinary) // by its extension, unread
		return true, nil
	}
	content, err := os.ReadFile(p)
	if err != nil {
		if missing(err) {
			return true, nil // gone since it was listed
		}
		return false, fmt.Errorf("fetch %q: %w", p, err)
	}
	if !w.opts.IncludeBinary && core.LooksBinary(p, content) {
		w.skip(p, ErrBinary)
		return true, nil
	}
	more, err := w.onDocument(ctx, p, jsvalue.DecodeUTF8(content), fileDocType(p))
	if err != nil {
		return false, stopError{err}
	}
	return more, nil
}

// fileDocType is Vectra's docType of a file: its extension without the dot,
// lowercased, or the lowercased name when it has none.
func fileDocType(p string) string {
	ext := pathutil.Extname(p)
	if len(ext) > 1 {
		return strings.ToLower(ext[1:])
	}
	return strings.ToLower(filepath.Base(p))
}
