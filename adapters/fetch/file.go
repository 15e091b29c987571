package fetch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/filetree"
	"github.com/foliovec/folio/core/jsvalue"
	"github.com/foliovec/folio/core/pathutil"
)

// FileOptions configure a FileFetcher. The zero value is the default.
type FileOptions struct {
	// IncludeBinary reports binary files (core.LooksBinary: a binary
	// extension such as .png or .zip, or a NUL byte in the first 8 KiB) as
	// text too, as Vectra does. By default they are skipped.
	IncludeBinary bool
	// FollowLinks follows symbolic links that lead outside the folder
	// walked, as Vectra does; what they reach is reported under its real
	// path. By default such a link is skipped (ErrOutsideTree), so a tree
	// holding a link to ~ or /etc adds nothing from there.
	FollowLinks bool
	// MaxFileBytes caps the size of a file read; a larger file is skipped
	// unread (ErrFileTooLarge). 0 means DefaultMaxFileBytes (20 MiB); a
	// negative value means no cap.
	MaxFileBytes int64
	// OnSkip, when set, is told of every file a Fetch does not report and
	// why: a binary file (ErrBinary), one over the size cap
	// (ErrFileTooLarge), a symbolic link leading outside the folder
	// (ErrOutsideTree, in a *filetree.LinkError naming the target), an
	// entry that is neither a file nor a folder (ErrNotRegular), or a file
	// or folder below the walked folder that cannot be read (the read's
	// error); with OnSkip set, such a read error no longer ends the walk.
	// It is called from the goroutine that called Fetch.
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
//
// Fixed over Vectra: a folder's entries are walked in name order, so the
// order is the same on every system; the walk stays inside the folder
// named (a symbolic link leading out is skipped unless
// FileOptions.FollowLinks); a file reached through a symbolic link inside
// the folder is reported once, under the path where it really lies, so a
// link cycle ends and one file is one document; binary files are skipped
// unless FileOptions.IncludeBinary, and files over FileOptions.MaxFileBytes
// always, both judged before the file is read whole; entries that are
// neither files nor folders (FIFOs, sockets, devices) are skipped in a walk
// and an error when named by uri; invalid UTF-8 bytes read as U+FFFD.
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

// DefaultMaxFileBytes is FileOptions.MaxFileBytes when it is 0: 20 MiB.
const DefaultMaxFileBytes = filetree.DefaultMaxFileBytes

// The reasons OnSkip gives. They are the filetree package's, so errors.Is
// matches either name.
var (
	// ErrBinary: a binary file.
	ErrBinary = filetree.ErrBinary
	// ErrFileTooLarge: a file over FileOptions.MaxFileBytes.
	ErrFileTooLarge = filetree.ErrTooLarge
	// ErrOutsideTree: a symbolic link leading outside the folder walked.
	ErrOutsideTree = filetree.ErrOutsideTree
	// ErrNotRegular: neither a file nor a folder (a FIFO, a socket, a
	// device); also the error of a Fetch whose uri names one.
	ErrNotRegular = filetree.ErrNotRegular
)

// Fetch reports the file at uri, or every file below the folder at uri,
// to onDocument. See FileFetcher for the rules.
func (f *FileFetcher) Fetch(ctx context.Context, uri string, onDocument func(ctx context.Context, uri, text, docType string) (bool, error)) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("fetch %q: %w", uri, err)
	}
	info, err := os.Stat(uri)
	if err != nil {
		if filetree.Missing(err) {
			return true, nil // as Vectra: a missing path is a silent success
		}
		return false, fmt.Errorf("fetch %q: %w", uri, err)
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		return false, fmt.Errorf("fetch %q: %w", uri, ErrNotRegular)
	}
	read := &filetree.ReadOptions{IncludeBinary: f.opts.IncludeBinary, MaxBytes: f.opts.MaxFileBytes}
	more := true
	err = filetree.Walk(ctx, uri, &filetree.Options{FollowLinks: f.opts.FollowLinks}, func(e filetree.Entry) error {
		below := e.Path != uri
		if e.Err != nil {
			return f.skip(e.Path, e.Err, below)
		}
		if !f.opts.IncludeBinary && core.LooksBinary(e.Path, nil) {
			return f.skip(e.Path, ErrBinary, true) // by its extension, unread
		}
		content, err := filetree.ReadFile(e.Path, read)
		switch {
		case err == nil:
		case filetree.Missing(err):
			return nil // gone since it was listed
		case errors.Is(err, ErrBinary), errors.Is(err, ErrFileTooLarge):
			return f.skip(e.Path, err, true)
		default:
			return f.skip(e.Path, fmt.Errorf("fetch %q: %w", e.Path, err), below)
		}
		more, err = onDocument(ctx, e.Path, jsvalue.DecodeUTF8(content), fileDocType(e.Path))
		if err != nil {
			return stopError{err}
		}
		if !more {
			return errStop
		}
		return nil
	})
	var stop stopError
	switch {
	case err == nil:
		return more, nil
	case errors.Is(err, errStop):
		return false, nil
	case errors.As(err, &stop):
		return false, stop.err
	case ctx.Err() != nil:
		return false, fmt.Errorf("fetch %q: %w", uri, ctx.Err())
	default:
		return false, err
	}
}

// skip tells OnSkip of a path not reported. A reason that is a read error
// ends the walk unless OnSkip is set or skippable says it never does.
func (f *FileFetcher) skip(p string, reason error, skippable bool) error {
	if f.opts.OnSkip != nil {
		f.opts.OnSkip(p, reason)
		return nil
	}
	if skippable || errors.Is(reason, ErrOutsideTree) || errors.Is(reason, ErrNotRegular) {
		return nil
	}
	if !strings.HasPrefix(reason.Error(), "fetch ") {
		reason = fmt.Errorf("fetch %q: %w", p, reason)
	}
	return reason
}

// errStop ends a walk whose callback returned false.
var errStop = errors.New("stopped by the callback")

// stopError carries an error of the onDocument callback up the walk: it
// ends the walk, OnSkip or not, and Fetch returns it unchanged.
type stopError struct{ err error }

func (e stopError) Error() string { return e.err.Error() }

// fileDocType is Vectra's docType of a file: its extension without the dot,
// lowercased, or the lowercased name when it has none.
func fileDocType(p string) string {
	ext := pathutil.Extname(p)
	if len(ext) > 1 {
		return strings.ToLower(ext[1:])
	}
	return strings.ToLower(filepath.Base(p))
}
