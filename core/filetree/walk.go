package filetree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOutsideTree is the reason a walk gives for a symbolic link whose
// target lies outside the folder walked (see [Options.FollowLinks]); it is
// wrapped by a [*LinkError] naming the target.
var ErrOutsideTree = errors.New("symbolic link leads outside the folder")

// ErrNotRegular is the reason a walk gives for an entry that is neither a
// file nor a folder (a FIFO, a socket, a device).
var ErrNotRegular = errors.New("not a regular file or a folder")

// LinkError is the reason a walk gives for a symbolic link it did not
// follow because its target lies outside the folder walked.
type LinkError struct {
	Link   string // the link, as the walk spells it
	Target string // where it leads: an absolute path, links resolved
}

func (e *LinkError) Error() string { return fmt.Sprintf("%v, to %s", ErrOutsideTree, e.Target) }

// Unwrap returns ErrOutsideTree.
func (e *LinkError) Unwrap() error { return ErrOutsideTree }

// Options configure a walk. The zero value is the default: stay inside
// the folder, walk everything.
type Options struct {
	// FollowLinks follows symbolic links whose target lies outside the
	// folder walked; what they reach is reported under its absolute real
	// path. By default such a link is reported as skipped ([*LinkError]).
	// Links inside the folder are always followed.
	FollowLinks bool
	// Inside lists more folders, as absolute paths with links resolved,
	// that count as inside the walk besides the root's own: a link into
	// one of them is followed and what it reaches reported under its real
	// path. A watcher of several folders names them all.
	Inside []string
	// OnFolder, when set, is called with every folder the walk enters
	// (the root first) before its entries are listed; SkipDir skips the
	// folder, any other error ends the walk.
	OnFolder func(path string) error
	// Exclude, when set, is asked of every folder and file below the
	// root, by the path the walk reports it under; a folder or file it
	// excludes is neither walked nor reported.
	Exclude func(path string) bool
}

// SkipDir, returned by Options.OnFolder, skips the folder.
var SkipDir = fs.SkipDir

// Entry is what a walk reports: a file to read, or a path it skipped.
type Entry struct {
	// Path is the path the file is stored under (see the package
	// documentation).
	Path string
	// Err is nil for a regular file; otherwise it is why Path was
	// skipped: a [*LinkError], [ErrNotRegular], or the error of a folder
	// that could not be listed or a link that could not be resolved.
	Err error
	// Dir reports that Path is a folder that could not be listed.
	Dir bool
}

// Walk calls fn for every regular file below root, in name order at each
// level, and for every entry it skips, following the rules of the package
// documentation. A root that is a file is reported as it is spelled. An
// error from fn ends the walk and Walk returns it unchanged; so does ctx's
// error. A root that does not exist is an error wrapping fs.ErrNotExist;
// entries that vanish during the walk, and links that lead nowhere, are
// passed over silently.
func Walk(ctx context.Context, root string, opts *Options, fn func(Entry) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		if !info.Mode().IsRegular() {
			return fn(Entry{Path: root, Err: ErrNotRegular})
		}
		return fn(Entry{Path: root})
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	if real, err = filepath.Abs(real); err != nil {
		return err
	}
	w := walk{ctx: ctx, fn: fn, root: root, realRoot: real, dirs: map[string]bool{}, files: map[string]bool{}}
	if opts != nil {
		w.opts = *opts
	}
	return w.folder(root, real)
}

// walk is one Walk's state.
type walk struct {
	ctx            context.Context
	opts           Options
	fn             func(Entry) error
	root, realRoot string
	dirs, files    map[string]bool // real paths visited
}

// folder walks the folder reported as path, whose real path is real.
func (w *walk) folder(path, real string) error {
	if w.dirs[real] {
		return nil
	}
	w.dirs[real] = true
	if w.opts.OnFolder != nil {
		if err := w.opts.OnFolder(path); err != nil {
			if errors.Is(err, SkipDir) {
				return nil
			}
			return err
		}
	}
	entries, err := os.ReadDir(real) // sorted by name
	if err != nil {
		if Missing(err) {
			return nil // gone since it was listed
		}
		return w.fn(Entry{Path: path, Err: err, Dir: true})
	}
	for _, e := range entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		if err := w.entry(filepath.Join(path, e.Name()), filepath.Join(real, e.Name()), e.Type()); err != nil {
			return err
		}
	}
	return nil
}

// entry visits one entry of a folder: p is how the walk spells it, real
// where it is (for a link: where the link itself is).
func (w *walk) entry(p, real string, t fs.FileMode) error {
	if t&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(real)
		switch {
		case Missing(err):
			return nil // a dangling link is no file
		case err != nil:
			return w.fn(Entry{Path: p, Err: err})
		case Under(target, w.realRoot):
			p = w.spell(target)
		case !w.opts.FollowLinks && !w.inside(target):
			return w.fn(Entry{Path: p, Err: &LinkError{Link: p, Target: target}})
		default:
			p = target
		}
		info, err := os.Stat(target)
		if err != nil {
			if Missing(err) {
				return nil
			}
			return w.fn(Entry{Path: p, Err: err})
		}
		real, t = target, info.Mode().Type()
	}
	if w.opts.Exclude != nil && w.opts.Exclude(p) {
		return nil
	}
	switch {
	case t.IsDir():
		return w.folder(p, real)
	case t.IsRegular():
		if w.files[real] {
			return nil // reached before by another route
		}
		w.files[real] = true
		return w.fn(Entry{Path: p})
	default:
		return w.fn(Entry{Path: p, Err: ErrNotRegular})
	}
}

// spell returns how the walk spells the real path target, which lies
// inside the root's real folder: the root as given, joined with target's
// place below the real folder.
func (w *walk) spell(target string) string {
	rel, err := filepath.Rel(w.realRoot, target)
	if err != nil {
		return target
	}
	return filepath.Join(w.root, rel)
}

// inside reports whether target lies in one of Options.Inside.
func (w *walk) inside(target string) bool {
	for _, dir := range w.opts.Inside {
		if Under(target, dir) {
			return true
		}
	}
	return false
}

// Under reports whether the path p is dir or lies below it (both
// cleaned, in the same spelling: absolute, or relative to one folder).
func Under(p, dir string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

// Missing reports whether err says a path does not exist (also when a
// component of it is a file).
func Missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
