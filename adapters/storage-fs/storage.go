package storagefs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// LocalFileStorage stores files on the local file system. Create one with
// [New]; the zero value is not ready for
// use.
type LocalFileStorage struct {
	fsys    filesystem
	root    *os.Root  // nil without Options.Root
	escapes error     // the error os.Root gives for a path that escapes it
	maxRead int64     // the largest file ReadFile returns
	blocks  sync.Pool // *[]byte: the aligned blocks of direct writes
}

// Options configures [New]; nil or zero options are the storage over
// the whole file system.
type Options struct {
	// Root, when not "", confines the storage to this existing directory:
	// paths are relative to it ("" is root itself), and a path that leaves
	// it (absolute, climbing above it with "..", or through a symbolic link
	// that points out) fails with an error wrapping [ErrOutsideRoot].
	// Symbolic links that stay inside are followed. The storage holds the
	// directory open until [LocalFileStorage.Close]; if root is moved, it
	// follows the directory. Use it whenever paths come from outside the
	// program.
	Root string
	// MaxReadSize is the largest file ReadFile reads; a larger one is an
	// error wrapping [ErrTooLarge] that names it. 0 means
	// [DefaultMaxReadSize].
	MaxReadSize int64
}

// DefaultMaxReadSize is Options.MaxReadSize when it is 0: 16 GiB, past any
// index that fits in memory, so only a hostile or broken file reaches it.
const DefaultMaxReadSize int64 = 16 << 30

// ErrTooLarge is wrapped by the error of ReadFile for a file larger than
// Options.MaxReadSize.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is wrapped by the error of ReadFile for a path that is not
// a regular file (a FIFO, a device, a socket, also through a symbolic
// link): reading one could block forever or never end. A symbolic link in
// place of a segment file (SegmentExt) is refused so too.
var ErrNotRegular = errors.New("not a regular file")

// SegmentExt ends the names of a segmented index's segment files, which
// this storage reads only as themselves, never through a symbolic link.
const SegmentExt = ".seg"

// New returns a storage configured by opts. Without a Root (nil opts
// included) it is over the whole file system: paths are used as the
// operating system reads them, relative ones from the working directory,
// and nothing confines them; New then never fails. With a Root it is
// confined to that directory (see Options.Root), and a root that cannot be
// opened is an error.
func New(opts *Options) (*LocalFileStorage, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxReadSize < 0 {
		return nil, fmt.Errorf("storagefs: max read size %d: %w", o.MaxReadSize, core.ErrInvalidArgument)
	}
	s := &LocalFileStorage{fsys: osFS{}, maxRead: DefaultMaxReadSize}
	if o.Root != "" {
		var err error
		if s, err = newRooted(o.Root); err != nil {
			return nil, err
		}
	}
	if o.MaxReadSize > 0 {
		s.maxRead = o.MaxReadSize
	}
	return s, nil
}

var _ core.FileStorage = (*LocalFileStorage)(nil)

var (
	errIsFolder    = errors.New("is a folder")
	errIsFile      = errors.New("is a file")
	errDeletesRoot = fmt.Errorf("cannot delete the top folder: %w", core.ErrInvalidArgument)
)

// newRooted returns a storage confined to the existing directory root
// (Options.Root).
func newRooted(root string) (*LocalFileStorage, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("storagefs: open root %q: %w", root, err)
	}
	// Learn the error os.Root reports for an escape, to recognise it later.
	_, escape := r.Lstat("..")
	var pathErr *fs.PathError
	if !errors.As(escape, &pathErr) {
		r.Close()
		return nil, fmt.Errorf("storagefs: open root %q: the root does not refuse \"..\" (got %v)", root, escape)
	}
	return &LocalFileStorage{fsys: r, root: r, escapes: pathErr.Err, maxRead: DefaultMaxReadSize}, nil
}

// Close releases the directory a rooted storage holds open; later calls
// fail. It does nothing for a storage from [New].
func (s *LocalFileStorage) Close() error {
	if s.root == nil {
		return nil
	}
	return s.root.Close()
}

// CreateFile writes a new file atomically: the content goes to a temporary
// file in the same folder, is synced, and is then linked into place, which
// fails with an error wrapping fs.ErrExist if anything is already at
// filePath. The folder must exist (fs.ErrNotExist otherwise).
func (s *LocalFileStorage) CreateFile(ctx context.Context, filePath string, content []byte) error {
	const op = "create file"
	t, err := s.resolveWritable(ctx, op, filePath)
	if err != nil {
		return err
	}
	dir := filepath.Dir(t.name)
	tmp, release, err := s.writeTemp(dir, content)
	if err != nil {
		return s.fail(op, filePath, err)
	}
	defer func() {
		s.fsys.Remove(tmp) // after the link, only the temporary name goes
		release()
	}()
	if err := ctx.Err(); err != nil {
		return err
	}
	switch err := s.fsys.Link(tmp, t.name); {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("storagefs: %s %q: %w", op, filePath, fs.ErrExist)
	case err != nil && !s.isEscape(err):
		// No hard links here (some network and FAT file systems): create
		// the file exclusively in place. Still exclusive, but a crash
		// mid-write can leave a partial file.
		if err := s.createInPlace(t.name, content); err != nil {
			return s.fail(op, filePath, err)
		}
	case err != nil:
		return s.fail(op, filePath, err)
	}
	if err := syncDir(s.fsys, dir); err != nil {
		return s.fail(op, filePath, fmt.Errorf("sync folder: %w", err))
	}
	return nil
}

// UpsertFile creates or replaces a file atomically and durably: the content
// goes to a temporary file in the same folder, is synced, and is renamed
// over filePath, and the folder is synced. Readers, and the file after a
// crash, see the old content or the new, never a mix. A symbolic link at
// filePath is replaced, never written through. It fails if a folder is at
// filePath, and with fs.ErrNotExist if the parent folder is missing.
func (s *LocalFileStorage) UpsertFile(ctx context.Context, filePath string, content []byte) error {
	return s.UpsertFileFrom(ctx, filePath, func(w io.Writer) error {
		if _, err := w.Write(content); err != nil {
			return s.fail("upsert file", filePath, err)
		}
		return nil
	})
}

// UpsertFileFrom creates or replaces a file with what write writes, as
// UpsertFile does with its content (core.FileStreamWriter): to a
// temporary file in the same folder, synced, renamed over filePath, the
// folder synced. An error of write, or ctx ending, removes the temporary
// file, leaves filePath as it was, and is returned (write's unchanged).
func (s *LocalFileStorage) UpsertFileFrom(ctx context.Context, filePath string, write func(w io.Writer) error) error {
	const op = "upsert file"
	t, err := s.resolveWritable(ctx, op, filePath)
	if err != nil {
		return err
	}
	if info, err := s.fsys.Stat(t.name); err == nil && info.IsDir() {
		return fmt.Errorf("storagefs: %s %q: %w", op, filePath, errIsFolder)
	}
	dir := filepath.Dir(t.name)
	var writeErr error
	tmp, release, err := s.writeTempWith(dir, func(f *os.File) error {
		w, finish := writeBehind(f, &s.blocks)
		if writeErr = write(ctxWriter{ctx, w}); writeErr != nil {
			return writeErr
		}
		return finish()
	}, true)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if writeErr != nil {
			return writeErr
		}
		return s.fail(op, filePath, err)
	}
	defer release()
	if err := ctx.Err(); err != nil {
		s.fsys.Remove(tmp)
		return err
	}
	if err := s.fsys.Rename(tmp, t.name); err != nil {
		s.fsys.Remove(tmp)
		return s.fail(op, filePath, err)
	}
	if err := syncDir(s.fsys, dir); err != nil {
		return s.fail(op, filePath, fmt.Errorf("sync folder: %w", err))
	}
	return nil
}

// ctxWriter is a writer whose writes fail with ctx's error once ctx ends.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// ColdFile passes the hint on (core.ColdFileHint): see writeBehind.
func (c ctxWriter) ColdFile() {
	if h, ok := c.w.(core.ColdFileHint); ok {
		h.ColdFile()
	}
}

// ReadFile returns a file's content. It fails with fs.ErrNotExist if
// nothing is at filePath (or a parent is a file), on a folder, with
// [ErrNotRegular] on anything but a regular file (a FIFO, a device: the
// open never blocks), and with [ErrTooLarge] on a file larger than
// Options.MaxReadSize. It reads in chunks and stops with the context's
// error when ctx ends.
func (s *LocalFileStorage) ReadFile(ctx context.Context, filePath string) ([]byte, error) {
	const op = "read file"
	f, size, err := s.openRegular(ctx, op, filePath, s.maxRead)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	content, err := readAll(ctx, f, size, s.maxRead)
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("storagefs: %s %q: grew past %d bytes: %w", op, filePath, s.maxRead, err)
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, s.fail(op, filePath, err)
	}
	return content, nil
}

// openRegular opens the regular file at filePath for reading, as ReadFile
// and OpenFile do, and returns its size.
// openRegular opens a regular file to read, no larger than limit bytes.
//
// A segment file of a segmented index (a name ending in SegmentExt) is
// opened only as itself: Folio writes segments, never links, so a symbolic
// link in a segment's place (which could make an index read a file outside
// its folder) is refused with an error wrapping ErrNotRegular.
func (s *LocalFileStorage) openRegular(ctx context.Context, op, filePath string, limit int64) (*os.File, int64, error) {
	t, err := s.resolve(ctx, op, filePath)
	if err != nil {
		return nil, 0, err
	}
	flags := os.O_RDONLY | openNonBlock
	if strings.HasSuffix(t.name, SegmentExt) {
		flags |= openNoFollow
		if info, err := s.fsys.Lstat(t.name); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			return nil, 0, fmt.Errorf("storagefs: %s %q: a symbolic link in a segment's place: %w", op, filePath, ErrNotRegular)
		}
	}
	f, err := s.fsys.OpenFile(t.name, flags, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, 0, fmt.Errorf("storagefs: %s %q: a symbolic link in a segment's place: %w", op, filePath, ErrNotRegular)
		}
		return nil, 0, s.failMissing(op, filePath, err)
	}
	info, err := f.Stat()
	switch {
	case err != nil:
		err = s.fail(op, filePath, err)
	case info.IsDir():
		err = fmt.Errorf("storagefs: %s %q: %w", op, filePath, errIsFolder)
	case !info.Mode().IsRegular():
		err = fmt.Errorf("storagefs: %s %q: %s: %w", op, filePath, info.Mode().Type(), ErrNotRegular)
	case info.Size() > limit:
		err = fmt.Errorf("storagefs: %s %q: %d bytes, more than %d: %w", op, filePath, info.Size(), limit, ErrTooLarge)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, info.Size(), nil
}

// readChunk is how much ReadFile reads between two looks at its context.
const readChunk = 8 << 20

// readAll reads f to its end, size bytes expected, at most max, checking
// ctx between chunks.
func readAll(ctx context.Context, f io.Reader, size, max int64) ([]byte, error) {
	buf := make([]byte, 0, size+1) // +1: reaching EOF needs no growth
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if int64(len(buf)) > max {
			return nil, ErrTooLarge
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, readChunk)
		}
		end := min(cap(buf), len(buf)+readChunk)
		n, err := f.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// DeleteFile removes a file; nothing at filePath is no error. It fails on
// a folder (or a symbolic link to one). A symbolic link that leads nowhere
// the storage can reach is removed like a file.
func (s *LocalFileStorage) DeleteFile(ctx context.Context, filePath string) error {
	const op = "delete file"
	t, err := s.resolve(ctx, op, filePath)
	if err != nil {
		return err
	}
	linkInfo, err := s.fsys.Lstat(t.name)
	switch {
	case missing(err) && !s.isEscape(err):
		return nil
	case err != nil:
		return s.fail(op, filePath, err)
	case linkInfo.IsDir():
		return fmt.Errorf("storagefs: %s %q: %w", op, filePath, errIsFolder)
	case linkInfo.Mode()&fs.ModeSymlink != 0:
		if info, err := s.fsys.Stat(t.name); err == nil && info.IsDir() {
			return fmt.Errorf("storagefs: %s %q: %w", op, filePath, errIsFolder)
		}
	}
	if err := s.fsys.Remove(t.name); err != nil && !missing(err) {
		return s.fail(op, filePath, err)
	}
	if err := syncDir(s.fsys, filepath.Dir(t.name)); err != nil {
		return s.fail(op, filePath, fmt.Errorf("sync folder: %w", err))
	}
	return nil
}

// PathExists reports whether a file or folder is at p, following symbolic
// links.
func (s *LocalFileStorage) PathExists(ctx context.Context, p string) (bool, error) {
	const op = "path exists"
	t, err := s.resolve(ctx, op, p)
	if err != nil {
		return false, err
	}
	_, err = s.fsys.Stat(t.name)
	switch {
	case err == nil:
		return true, nil
	case missing(err) && !s.isEscape(err):
		return false, nil
	}
	return false, s.fail(op, p, err)
}

// CreateFolder creates a folder and any missing parent, and syncs the
// folders that gained an entry; an existing folder is no error. It fails
// with fs.ErrExist if a file is at folderPath, and fails if a parent is a
// file.
func (s *LocalFileStorage) CreateFolder(ctx context.Context, folderPath string) error {
	const op = "create folder"
	t, err := s.resolveWritable(ctx, op, folderPath)
	if err != nil {
		return err
	}
	// Find the folders to create, deepest first, to sync their parents.
	var created []string
	for cur := t.name; ; cur = filepath.Dir(cur) {
		info, err := s.fsys.Stat(cur)
		if err == nil {
			if !info.IsDir() && cur == t.name {
				return fmt.Errorf("storagefs: %s %q: %w", op, folderPath, fs.ErrExist)
			}
			break // a file higher up makes MkdirAll fail below
		}
		if !missing(err) || s.isEscape(err) {
			return s.fail(op, folderPath, err)
		}
		created = append(created, cur)
		if filepath.Dir(cur) == cur {
			break
		}
	}
	if len(created) == 0 {
		return nil
	}
	if err := s.fsys.MkdirAll(t.name, 0o777); err != nil {
		return s.fail(op, folderPath, err)
	}
	for _, dir := range created {
		if err := syncDir(s.fsys, filepath.Dir(dir)); err != nil {
			return s.fail(op, folderPath, fmt.Errorf("sync folder: %w", err))
		}
	}
	return nil
}

// DeleteFolder removes a folder and everything in it (a symbolic link to a
// folder is removed, not followed); nothing at folderPath is no error. It
// fails on a file, and with core.ErrInvalidArgument for the storage's top
// folder ("" for a rooted storage) and for a file-system root.
func (s *LocalFileStorage) DeleteFolder(ctx context.Context, folderPath string) error {
	const op = "delete folder"
	t, err := s.resolve(ctx, op, folderPath)
	if err != nil {
		return err
	}
	dir := filepath.Dir(t.name)
	if t.name == "." || dir == t.name {
		return fmt.Errorf("storagefs: %s %q: %w", op, folderPath, errDeletesRoot)
	}
	info, err := s.fsys.Stat(t.name)
	switch {
	case missing(err) && !s.isEscape(err):
		return nil
	case err != nil:
		return s.fail(op, folderPath, err)
	case !info.IsDir():
		return fmt.Errorf("storagefs: %s %q: %w", op, folderPath, errIsFile)
	}
	if err := s.fsys.RemoveAll(t.name); err != nil {
		return s.fail(op, folderPath, err)
	}
	if err := syncDir(s.fsys, dir); err != nil {
		return s.fail(op, folderPath, fmt.Errorf("sync folder: %w", err))
	}
	return nil
}

// GetDetails describes the file or folder at p, following symbolic links.
// It fails with fs.ErrNotExist if nothing is there.
func (s *LocalFileStorage) GetDetails(ctx context.Context, p string) (core.FileDetails, error) {
	const op = "get details"
	t, err := s.resolve(ctx, op, p)
	if err != nil {
		return core.FileDetails{}, err
	}
	info, err := s.fsys.Stat(t.name)
	if err != nil {
		return core.FileDetails{}, s.failMissing(op, p, err)
	}
	return details(t.display, pathutil.Basename(t.display), info.IsDir()), nil
}

// ListFiles lists the immediate children of a folder, sorted by name,
// keeping files, folders or both as filter says ("" is ListAll). Temporary
// files of writes (names starting with [TempPrefix]) and lock files
// ([LockFile]) are never listed, nor
// symbolic links that lead nowhere the storage can reach. It fails with
// fs.ErrNotExist if the folder is missing, on a file, and with
// core.ErrInvalidArgument for an unknown filter.
func (s *LocalFileStorage) ListFiles(ctx context.Context, folderPath string, filter core.ListFilesFilter) ([]core.FileDetails, error) {
	const op = "list files"
	t, err := s.resolve(ctx, op, folderPath)
	if err != nil {
		return nil, err
	}
	files, folders, err := filter.Selects()
	if err != nil {
		return nil, fmt.Errorf("storagefs: %s %q: %w", op, folderPath, err)
	}
	info, err := s.fsys.Stat(t.name)
	if err != nil {
		return nil, s.failMissing(op, folderPath, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("storagefs: %s %q: %w", op, folderPath, errIsFile)
	}
	entries, err := s.readDir(t.name)
	if err != nil {
		return nil, s.failMissing(op, folderPath, err)
	}
	var out []core.FileDetails
	for _, entry := range entries {
		name := entry.Name()
		if strings.HasPrefix(name, TempPrefix) || name == LockFile {
			continue
		}
		isDir := entry.IsDir()
		if entry.Type()&fs.ModeSymlink != 0 {
			info, err := s.fsys.Stat(filepath.Join(t.name, name))
			if err != nil {
				continue // dangling, or pointing out of the root
			}
			isDir = info.IsDir()
		}
		if isDir && folders || !isDir && files {
			out = append(out, details(pathutil.Join(t.display, name), name, isDir))
		}
	}
	slices.SortFunc(out, func(a, b core.FileDetails) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (s *LocalFileStorage) readDir(name string) ([]fs.DirEntry, error) {
	f, err := s.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func details(path, name string, isDir bool) core.FileDetails {
	if isDir {
		return core.FileDetails{Name: name, Path: path, IsFolder: true, FileType: core.FileTypeFolder}
	}
	return core.FileDetails{Name: name, Path: path, FileType: core.GetFileType(name)}
}

// isEscape reports whether err is os.Root refusing to leave the root.
func (s *LocalFileStorage) isEscape(err error) bool {
	return s.escapes != nil && errors.Is(err, s.escapes)
}

// failMissing is fail for readers: a parent that is a file (ENOTDIR) also
// wraps fs.ErrNotExist.
func (s *LocalFileStorage) failMissing(op, p string, err error) error {
	if missing(err) && !errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	}
	return s.fail(op, p, err)
}
