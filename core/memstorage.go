package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/foliovec/folio/core/internal/memfs"
	"github.com/foliovec/folio/core/pathutil"
)

// MemoryStorage is the in-memory FileStorage: Vectra's
// VirtualFileStorage, for tests, the browser (GOOS=js) and WASI, and any
// index that need not outlive the process. The storage-mem adapter, the
// conformance suites' self-tests and core's own tests all use it.
//
// Paths are normalised with [pathutil.Normalize], so "a//b", "a/./b",
// "a/x/../b" and "a\b" name the same entry, a trailing "/" is ignored, and a
// ".." that would climb above the top is dropped. The relative top ("") and
// the absolute root ("/") are two folders that always exist; every other
// folder is created with CreateFolder.
//
// It keeps the rules of the file-system adapter, which the storage
// conformance suite pins for both, and fixes Vectra's VirtualFileStorage
// where they differ: CreateFolder creates missing parents, DeleteFolder is
// recursive, CreateFile and UpsertFile need their parent folder to exist,
// and ListFiles reports folders with [FileTypeFolder] and sorts its entries
// by name.
//
// A MemoryStorage is safe for concurrent use; reads run in parallel. Every
// write replaces a file whole, so readers see the old content or the new
// one, never a mix, and WriteFiles lands its files together. Contents are
// copied on the way in and on the way out. It implements [GroupWriter],
// [FolderLocker] (an in-process lock per folder, shared by every user of the
// storage value), [FileVersioner] (a counter every write advances), so
// several LocalIndex values over one storage share a folder as processes
// share one on disk, and [FileRangeReader] (a file opened so reads the
// content it had when opened, uncopied, also as a [RangeBatcher]).
//
// Errors carry the operation and the path (`memory storage: create file
// "a.txt": file already exists`). A path that exists where a new file or
// folder should go wraps [io/fs.ErrExist]; a missing file, folder or parent
// folder wraps [io/fs.ErrNotExist]. An unknown ListFiles filter and deleting
// a root folder wrap [ErrInvalidArgument]. A cancelled or expired context
// is returned unchanged, before any change.
type MemoryStorage struct{ tree *memfs.FS }

// NewMemoryStorage returns an empty storage holding only the root folders
// "" and "/".
func NewMemoryStorage() *MemoryStorage { return &MemoryStorage{tree: memfs.New()} }

var (
	_ FileStorage     = (*MemoryStorage)(nil)
	_ GroupWriter     = (*MemoryStorage)(nil)
	_ FolderLocker    = (*MemoryStorage)(nil)
	_ FileVersioner   = (*MemoryStorage)(nil)
	_ FileRangeReader = (*MemoryStorage)(nil)
	_ RangeBatcher    = memRangeFile{}
)

// do runs f on p's key after checking ctx, naming op and p in its error.
func do(ctx context.Context, op, p string, f func(key string) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := f(pathutil.Normalize(p))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, memfs.ErrRoot):
		err = fmt.Errorf("%w: %w", err, ErrInvalidArgument)
	}
	return fmt.Errorf("memory storage: %s %q: %w", op, p, err)
}

// CreateFile stores a copy of content as a new file at filePath.
func (s *MemoryStorage) CreateFile(ctx context.Context, filePath string, content []byte) error {
	return do(ctx, "create file", filePath, func(k string) error { return s.tree.Create(k, content) })
}

// UpsertFile stores a copy of content at filePath, replacing a file there.
func (s *MemoryStorage) UpsertFile(ctx context.Context, filePath string, content []byte) error {
	return do(ctx, "upsert file", filePath, func(k string) error { return s.tree.Upsert(k, content) })
}

// WriteFiles upserts the files in order at once (readers see none of them
// or all); it stops at the first failure.
func (s *MemoryStorage) WriteFiles(ctx context.Context, files []FileWrite) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	keys, contents := make([]string, len(files)), make([][]byte, len(files))
	for i, f := range files {
		keys[i], contents[i] = pathutil.Normalize(f.Path), f.Content
	}
	if i, err := s.tree.UpsertAll(keys, contents); err != nil {
		return do(ctx, "write file", files[i].Path, func(string) error { return err })
	}
	return nil
}

// ReadFile returns a copy of the file's content (empty, not nil, if empty).
func (s *MemoryStorage) ReadFile(ctx context.Context, filePath string) ([]byte, error) {
	var b []byte
	err := do(ctx, "read file", filePath, func(k string) (err error) {
		b, err = s.tree.Read(k)
		return err
	})
	return b, err
}

// OpenFileRange opens the file at filePath for reads of its parts: they
// read the content it had when opened, whatever is written after.
func (s *MemoryStorage) OpenFileRange(ctx context.Context, filePath string) (RangeFile, error) {
	var b []byte
	err := do(ctx, "open file", filePath, func(k string) (err error) {
		b, err = s.tree.Shared(k)
		return err
	})
	if err != nil {
		return nil, err
	}
	return memRangeFile{path: filePath, b: b}, nil
}

// memRangeFile is a file of a MemoryStorage opened by OpenFileRange.
type memRangeFile struct {
	path string
	b    []byte
}

func (f memRangeFile) Size() int64 { return int64(len(f.b)) }

func (f memRangeFile) ReadRange(ctx context.Context, p []byte, off int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if off < 0 || off > int64(len(f.b)) || int64(len(p)) > int64(len(f.b))-off {
		return fmt.Errorf("memory storage: read %q at %d: %w", f.path, off, io.ErrUnexpectedEOF)
	}
	copy(p, f.b[off:])
	return nil
}

func (f memRangeFile) ReadRanges(ctx context.Context, parts []FilePart) error {
	for _, p := range parts {
		if err := f.ReadRange(ctx, p.P, p.Off); err != nil {
			return err
		}
	}
	return nil
}

func (memRangeFile) Close() error { return nil }

// DeleteFile removes the file at filePath; nothing there is no error.
func (s *MemoryStorage) DeleteFile(ctx context.Context, filePath string) error {
	return do(ctx, "delete file", filePath, func(k string) error { return s.tree.Delete(k, false) })
}

// PathExists reports whether a file or folder is at p.
func (s *MemoryStorage) PathExists(ctx context.Context, p string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	_, err := s.tree.Stat(pathutil.Normalize(p))
	return err == nil, nil
}

// CreateFolder creates the folder and its missing parents; one there is no error.
func (s *MemoryStorage) CreateFolder(ctx context.Context, folderPath string) error {
	return do(ctx, "create folder", folderPath, s.tree.MakeFolder)
}

// DeleteFolder removes the folder and everything below it; nothing there is no error.
func (s *MemoryStorage) DeleteFolder(ctx context.Context, folderPath string) error {
	return do(ctx, "delete folder", folderPath, func(k string) error { return s.tree.Delete(k, true) })
}

// GetDetails describes the file or folder at p.
func (s *MemoryStorage) GetDetails(ctx context.Context, p string) (FileDetails, error) {
	var d FileDetails
	err := do(ctx, "get details", p, func(k string) error {
		e, err := s.tree.Stat(k)
		d = memDetails(e)
		return err
	})
	return d, err
}

func memDetails(e memfs.Entry) FileDetails {
	if e.IsFolder {
		return FileDetails{Name: e.Name, Path: e.Path, IsFolder: true, FileType: FileTypeFolder}
	}
	return FileDetails{Name: e.Name, Path: e.Path, FileType: GetFileType(e.Name)}
}

// ListFiles lists the folder's immediate children, sorted by name, keeping
// files, folders or both as filter says ("" is ListAll).
func (s *MemoryStorage) ListFiles(ctx context.Context, folderPath string, filter ListFilesFilter) ([]FileDetails, error) {
	var out []FileDetails
	err := do(ctx, "list files", folderPath, func(k string) error {
		files, folders, err := filter.Selects()
		if err != nil {
			return err
		}
		entries, err := s.tree.List(k)
		for _, e := range entries {
			if e.IsFolder && folders || !e.IsFolder && files {
				out = append(out, memDetails(e))
			}
		}
		return err
	})
	return out, err
}

// LockFolder takes the storage's lock on the folder, which must exist,
// waiting until it is free or ctx ends; the release may be called twice.
func (s *MemoryStorage) LockFolder(ctx context.Context, folderPath string) (func(), error) {
	var unlock func()
	err := do(ctx, "lock folder", folderPath, func(k string) (err error) {
		unlock, err = s.tree.Lock(ctx, k)
		return err
	})
	if ctxErr := ctx.Err(); err != nil && errors.Is(err, ctxErr) {
		return nil, ctxErr
	}
	return unlock, err
}

// FileVersion returns the file's write counter, which each write advances.
func (s *MemoryStorage) FileVersion(ctx context.Context, filePath string) (string, error) {
	var v uint64
	err := do(ctx, "file version", filePath, func(k string) (err error) {
		v, err = s.tree.Version(k)
		return err
	})
	if err != nil {
		return "", err
	}
	return strconv.FormatUint(v, 10), nil
}
