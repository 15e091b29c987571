package storagemem

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// VirtualFileStorage keeps files and folders in memory. Create one with
// [New]; the zero value is not ready for use.
type VirtualFileStorage struct {
	mu      sync.RWMutex
	entries map[string]*entry // by normalised path; "" and "/" are the roots
	gen     uint64            // the last generation given to a file write; guarded by mu

	locks folderLocks
}

// entry is a file (data) or a folder (children, by name).
type entry struct {
	folder   bool
	data     []byte
	gen      uint64 // the storage's write counter when data was written
	children map[string]struct{}
}

var _ core.FileStorage = (*VirtualFileStorage)(nil)

var (
	errIsFolder    = errors.New("is a folder")
	errIsFile      = errors.New("is a file")
	errParentFile  = errors.New("a parent is a file")
	errDeletesRoot = fmt.Errorf("cannot delete a root folder: %w", core.ErrInvalidArgument)
)

// New returns an empty storage holding only the root folders "" and "/".
func New() *VirtualFileStorage {
	return &VirtualFileStorage{entries: map[string]*entry{
		"":  newFolder(),
		"/": newFolder(),
	}}
}

// newFile is a file entry holding a copy of content, with the next
// generation. s.mu must be held for writing.
func (s *VirtualFileStorage) newFile(content []byte) *entry {
	s.gen++
	return &entry{data: clone(content), gen: s.gen}
}

func newFolder() *entry { return &entry{folder: true, children: map[string]struct{}{}} }

// split returns the parent key and the name of a key; isRoot is true for
// the roots, which have neither.
func split(key string) (parent, name string, isRoot bool) {
	if key == "" || key == "/" {
		return "", "", true
	}
	i := strings.LastIndexByte(key, '/')
	switch {
	case i < 0:
		return "", key, false
	case i == 0:
		return "/", key[1:], false
	}
	return key[:i], key[i+1:], false
}

// childKey is the key of the entry name in the folder parent; split's
// inverse.
func childKey(parent, name string) string {
	if parent == "" || parent == "/" {
		return parent + name
	}
	return parent + "/" + name
}

// key checks ctx and returns the normalised key of p.
func key(ctx context.Context, p string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return pathutil.Normalize(p), nil
}

// parentFolder returns the folder that holds key; the caller holds the lock.
func (s *VirtualFileStorage) parentFolder(key string) (*entry, string, error) {
	parent, name, _ := split(key)
	e, ok := s.entries[parent]
	if !ok {
		if s.belowFile(parent) {
			return nil, "", errParentFile
		}
		return nil, "", fmt.Errorf("parent folder %q: %w", parent, fs.ErrNotExist)
	}
	if !e.folder {
		return nil, "", errParentFile
	}
	return e, name, nil
}

// belowFile reports whether some ancestor of key is a file; the caller
// holds the lock.
func (s *VirtualFileStorage) belowFile(key string) bool {
	for {
		parent, _, isRoot := split(key)
		if isRoot {
			return false
		}
		if e, ok := s.entries[parent]; ok {
			return !e.folder
		}
		key = parent
	}
}

// CreateFile stores a copy of content as a new file. It fails with
// fs.ErrExist if a file or folder is at filePath, and with fs.ErrNotExist if
// the parent folder is missing.
func (s *VirtualFileStorage) CreateFile(ctx context.Context, filePath string, content []byte) error {
	k, err := key(ctx, filePath)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.entries[k]; ok {
		return fmt.Errorf("storagemem: create file %q: %w", filePath, fs.ErrExist)
	}
	parent, name, err := s.parentFolder(k)
	if err != nil {
		return fmt.Errorf("storagemem: create file %q: %w", filePath, err)
	}
	s.entries[k] = s.newFile(content)
	parent.children[name] = struct{}{}
	return nil
}

// UpsertFile stores a copy of content as the file at filePath, replacing
// any file there. It fails if a folder is there, and with fs.ErrNotExist if
// the parent folder is missing.
func (s *VirtualFileStorage) UpsertFile(ctx context.Context, filePath string, content []byte) error {
	k, err := key(ctx, filePath)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.entries[k]; ok {
		if e.folder {
			return fmt.Errorf("storagemem: upsert file %q: %w", filePath, errIsFolder)
		}
		e.data = clone(content)
		s.gen++
		e.gen = s.gen
		return nil
	}
	parent, name, err := s.parentFolder(k)
	if err != nil {
		return fmt.Errorf("storagemem: upsert file %q: %w", filePath, err)
	}
	s.entries[k] = s.newFile(content)
	parent.children[name] = struct{}{}
	return nil
}

// ReadFile returns a copy of the file's content (empty, not nil, for an
// empty file). It fails with fs.ErrNotExist if nothing is at filePath.
func (s *VirtualFileStorage) ReadFile(ctx context.Context, filePath string) ([]byte, error) {
	k, err := key(ctx, filePath)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.entries[k]
	switch {
	case !ok:
		return nil, fmt.Errorf("storagemem: read file %q: %w", filePath, fs.ErrNotExist)
	case e.folder:
		return nil, fmt.Errorf("storagemem: read file %q: %w", filePath, errIsFolder)
	}
	return append([]byte{}, e.data...), nil
}

// DeleteFile removes the file at filePath; nothing there is no error. It
// fails if a folder is there.
func (s *VirtualFileStorage) DeleteFile(ctx context.Context, filePath string) error {
	k, err := key(ctx, filePath)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[k]
	switch {
	case !ok:
		return nil
	case e.folder:
		return fmt.Errorf("storagemem: delete file %q: %w", filePath, errIsFolder)
	}
	s.remove(k)
	return nil
}

// remove deletes key and, for a folder, everything below it; the caller
// holds the lock.
func (s *VirtualFileStorage) remove(k string) {
	if e := s.entries[k]; e.folder {
		for name := range e.children {
			s.remove(childKey(k, name))
		}
	}
	delete(s.entries, k)
	parent, name, _ := split(k)
	delete(s.entries[parent].children, name)
}

// PathExists reports whether a file or folder is at p.
func (s *VirtualFileStorage) PathExists(ctx context.Context, p string) (bool, error) {
	k, err := key(ctx, p)
	if err != nil {
		return false, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.entries[k]
	return ok, nil
}

// CreateFolder creates the folder at folderPath and any missing parent; an
// existing folder is no error. It fails with fs.ErrExist if a file is at
// folderPath, and if one of its parents is a file.
func (s *VirtualFileStorage) CreateFolder(ctx context.Context, folderPath string) error {
	k, err := key(ctx, folderPath)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var missing []string
	cur := k
	for {
		e, ok := s.entries[cur] // the roots always exist, so the walk ends
		if ok && e.folder {
			break
		}
		if ok && cur == k {
			return fmt.Errorf("storagemem: create folder %q: %w", folderPath, fs.ErrExist)
		}
		if ok {
			return fmt.Errorf("storagemem: create folder %q: %w", folderPath, errParentFile)
		}
		missing = append(missing, cur)
		cur, _, _ = split(cur)
	}
	for _, m := range slices.Backward(missing) {
		s.entries[m] = newFolder()
		parent, name, _ := split(m)
		s.entries[parent].children[name] = struct{}{}
	}
	return nil
}

// DeleteFolder removes the folder at folderPath and everything below it;
// nothing there is no error. It fails if a file is there, and with
// core.ErrInvalidArgument for the roots "" and "/".
func (s *VirtualFileStorage) DeleteFolder(ctx context.Context, folderPath string) error {
	k, err := key(ctx, folderPath)
	if err != nil {
		return err
	}
	if _, _, isRoot := split(k); isRoot {
		return fmt.Errorf("storagemem: delete folder %q: %w", folderPath, errDeletesRoot)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[k]
	switch {
	case !ok:
		return nil
	case !e.folder:
		return fmt.Errorf("storagemem: delete folder %q: %w", folderPath, errIsFile)
	}
	s.remove(k)
	return nil
}

// GetDetails describes the file or folder at p; fs.ErrNotExist if nothing
// is there.
func (s *VirtualFileStorage) GetDetails(ctx context.Context, p string) (core.FileDetails, error) {
	k, err := key(ctx, p)
	if err != nil {
		return core.FileDetails{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.entries[k]
	if !ok {
		return core.FileDetails{}, fmt.Errorf("storagemem: get details %q: %w", p, fs.ErrNotExist)
	}
	_, name, _ := split(k)
	return details(k, name, e), nil
}

func details(key, name string, e *entry) core.FileDetails {
	if e.folder {
		return core.FileDetails{Name: name, Path: key, IsFolder: true, FileType: core.FileTypeFolder}
	}
	return core.FileDetails{Name: name, Path: key, FileType: core.GetFileType(name)}
}

// ListFiles lists the immediate children of the folder at folderPath,
// sorted by name, keeping files, folders or both as filter says ("" is
// ListAll). It fails with fs.ErrNotExist if the folder is missing, and with
// core.ErrInvalidArgument for an unknown filter.
func (s *VirtualFileStorage) ListFiles(ctx context.Context, folderPath string, filter core.ListFilesFilter) ([]core.FileDetails, error) {
	k, err := key(ctx, folderPath)
	if err != nil {
		return nil, err
	}
	files, folders, err := filter.Selects()
	if err != nil {
		return nil, fmt.Errorf("storagemem: list files %q: %w", folderPath, err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	dir, ok := s.entries[k]
	switch {
	case !ok:
		return nil, fmt.Errorf("storagemem: list files %q: %w", folderPath, fs.ErrNotExist)
	case !dir.folder:
		return nil, fmt.Errorf("storagemem: list files %q: %w", folderPath, errIsFile)
	}
	var out []core.FileDetails
	for name := range dir.children {
		child := childKey(k, name)
		e := s.entries[child]
		if e.folder && folders || !e.folder && files {
			out = append(out, details(child, name, e))
		}
	}
	slices.SortFunc(out, func(a, b core.FileDetails) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// clone copies b; an empty or nil b gives an empty, non-nil slice.
func clone(b []byte) []byte { return append([]byte{}, b...) }
