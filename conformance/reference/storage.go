package reference

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// Storage is an in-memory core.FileStorage and core.GroupWriter whose paths
// are "/"-separated and relative to its top level, which always exists.
// Paths that leave the top level ("..", absolute paths) fail with
// core.ErrInvalidArgument. Writes keep their own copy of the caller's bytes
// and reads return a copy; UpsertFile replaces a file atomically. Every
// method checks its context first and changes nothing when it is done.
//
// The zero value is not usable; call [NewStorage]. Use one *Storage
// wherever a test would reopen the same folder: the value holds nothing but
// the data.
type Storage struct {
	mu      sync.RWMutex
	files   map[string][]byte
	folders map[string]bool   // "" (the top level) is always present
	gens    map[string]uint64 // each file's write number, for FileVersion
	gen     uint64            // the last write number given

	locksMu sync.Mutex
	locks   map[string]chan struct{} // LockFolder's lock per folder key
}

// NewStorage returns an empty storage.
func NewStorage() *Storage {
	return &Storage{files: map[string][]byte{}, folders: map[string]bool{"": true}, gens: map[string]uint64{}, locks: map[string]chan struct{}{}}
}

var (
	_ core.FileStorage   = (*Storage)(nil)
	_ core.GroupWriter   = (*Storage)(nil)
	_ core.FolderLocker  = (*Storage)(nil)
	_ core.FileVersioner = (*Storage)(nil)
)

// errKind is the cause when a path names a file where a folder is needed, or
// the other way round.
var errKind = errors.New("wrong kind of entry")

// key checks ctx and p and returns p's key: the normalised path, "" for the
// top level.
func key(ctx context.Context, p string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if strings.HasPrefix(p, "/") || pathutil.IsAbsolute(p) {
		return "", fmt.Errorf("reference: %q is absolute: %w", p, core.ErrInvalidArgument)
	}
	depth := 0
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return "", fmt.Errorf("reference: %q leaves the top level: %w", p, core.ErrInvalidArgument)
			}
		default:
			depth++
		}
	}
	return pathutil.Normalize(p), nil
}

func parentOf(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[:i]
	}
	return ""
}

// checkParent reports why a file cannot be written at key, if it cannot.
// The caller holds s.mu.
func (s *Storage) checkParent(key string) error {
	parent := parentOf(key)
	if s.folders[parent] {
		return nil
	}
	if _, isFile := s.files[parent]; isFile {
		return fmt.Errorf("reference: parent %q: %w", parent, errKind)
	}
	return fmt.Errorf("reference: parent %q: %w", parent, fs.ErrNotExist)
}

// CreateFile writes a new file; it fails with fs.ErrExist if p exists.
func (s *Storage) CreateFile(ctx context.Context, p string, content []byte) error {
	k, err := key(ctx, p)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, isFile := s.files[k]; isFile || s.folders[k] {
		return fmt.Errorf("reference: create %q: %w", k, fs.ErrExist)
	}
	if err := s.checkParent(k); err != nil {
		return err
	}
	s.files[k] = slices.Clone(content)
	s.wroteLocked(k)
	return nil
}

// UpsertFile writes or replaces a file.
func (s *Storage) UpsertFile(ctx context.Context, p string, content []byte) error {
	k, err := key(ctx, p)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.upsertLocked(k, slices.Clone(content))
}

func (s *Storage) upsertLocked(k string, content []byte) error {
	if s.folders[k] {
		return fmt.Errorf("reference: upsert %q: %w", k, errKind)
	}
	if err := s.checkParent(k); err != nil {
		return err
	}
	s.files[k] = content
	s.wroteLocked(k)
	return nil
}

// WriteFiles upserts every file in order under one lock, so readers see
// none of them or all of them; it stops at the first failure.
func (s *Storage) WriteFiles(ctx context.Context, files []core.FileWrite) error {
	keys := make([]string, len(files))
	for i, f := range files {
		k, err := key(ctx, f.Path)
		if err != nil {
			return err
		}
		keys[i] = k
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range files {
		if err := s.upsertLocked(keys[i], slices.Clone(f.Content)); err != nil {
			return err
		}
	}
	return nil
}

// ReadFile returns a copy of a file's content.
func (s *Storage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	k, err := key(ctx, p)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if content, ok := s.files[k]; ok {
		return slices.Clone(content), nil
	}
	if s.folders[k] {
		return nil, fmt.Errorf("reference: read %q: %w", k, errKind)
	}
	return nil, fmt.Errorf("reference: read %q: %w", k, fs.ErrNotExist)
}

// DeleteFile removes a file; a missing one is not an error.
func (s *Storage) DeleteFile(ctx context.Context, p string) error {
	k, err := key(ctx, p)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.folders[k] {
		return fmt.Errorf("reference: delete file %q: %w", k, errKind)
	}
	delete(s.files, k)
	return nil
}

// PathExists reports whether p names a file or a folder.
func (s *Storage) PathExists(ctx context.Context, p string) (bool, error) {
	k, err := key(ctx, p)
	if err != nil {
		return false, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, isFile := s.files[k]
	return isFile || s.folders[k], nil
}

// CreateFolder creates a folder and its missing parents.
func (s *Storage) CreateFolder(ctx context.Context, p string) error {
	k, err := key(ctx, p)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var missing []string
	for f := k; !s.folders[f]; f = parentOf(f) {
		if _, isFile := s.files[f]; isFile {
			return fmt.Errorf("reference: create folder %q: %q: %w", k, f, fs.ErrExist)
		}
		missing = append(missing, f)
	}
	for _, f := range missing {
		s.folders[f] = true
	}
	return nil
}

// DeleteFolder removes a folder and everything below it; a missing one is
// not an error. The top level cannot be deleted.
func (s *Storage) DeleteFolder(ctx context.Context, p string) error {
	k, err := key(ctx, p)
	if err != nil {
		return err
	}
	if k == "" {
		return fmt.Errorf("reference: delete the top level: %w", core.ErrInvalidArgument)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, isFile := s.files[k]; isFile {
		return fmt.Errorf("reference: delete folder %q: %w", k, errKind)
	}
	delete(s.folders, k)
	prefix := k + "/"
	for f := range s.folders {
		if strings.HasPrefix(f, prefix) {
			delete(s.folders, f)
		}
	}
	for f := range s.files {
		if strings.HasPrefix(f, prefix) {
			delete(s.files, f)
		}
	}
	return nil
}

// GetDetails describes a file or folder.
func (s *Storage) GetDetails(ctx context.Context, p string) (core.FileDetails, error) {
	k, err := key(ctx, p)
	if err != nil {
		return core.FileDetails{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.detailsLocked(k)
}

func (s *Storage) detailsLocked(k string) (core.FileDetails, error) {
	name := pathutil.Basename(k)
	if s.folders[k] {
		return core.FileDetails{Name: name, Path: k, IsFolder: true, FileType: core.FileTypeFolder}, nil
	}
	if _, ok := s.files[k]; ok {
		return core.FileDetails{Name: name, Path: k, FileType: core.GetFileType(name)}, nil
	}
	return core.FileDetails{}, fmt.Errorf("reference: details %q: %w", k, fs.ErrNotExist)
}

// ListFiles lists a folder's immediate children, sorted by name.
func (s *Storage) ListFiles(ctx context.Context, p string, filter core.ListFilesFilter) ([]core.FileDetails, error) {
	k, err := key(ctx, p)
	if err != nil {
		return nil, err
	}
	wantFiles, wantFolders, err := filter.Selects()
	if err != nil {
		return nil, fmt.Errorf("reference: list %q: %w", k, err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.folders[k] {
		if _, isFile := s.files[k]; isFile {
			return nil, fmt.Errorf("reference: list %q: %w", k, errKind)
		}
		return nil, fmt.Errorf("reference: list %q: %w", k, fs.ErrNotExist)
	}
	var out []core.FileDetails
	for f := range s.folders {
		if wantFolders && f != "" && parentOf(f) == k {
			d, _ := s.detailsLocked(f)
			out = append(out, d)
		}
	}
	for f := range s.files {
		if wantFiles && parentOf(f) == k {
			d, _ := s.detailsLocked(f)
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b core.FileDetails) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// wroteLocked gives the file k a new write number. s.mu is held.
func (s *Storage) wroteLocked(k string) {
	s.gen++
	s.gens[k] = s.gen
}

// FileVersion returns the file's write number.
func (s *Storage) FileVersion(ctx context.Context, p string) (string, error) {
	k, err := key(ctx, p)
	if err != nil {
		return "", err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.files[k]; !ok {
		return "", fmt.Errorf("reference: file version %q: %w", k, fs.ErrNotExist)
	}
	return strconv.FormatUint(s.gens[k], 10), nil
}

// LockFolder takes the folder's lock, a one-slot channel, waiting until
// ctx ends.
func (s *Storage) LockFolder(ctx context.Context, p string) (func(), error) {
	k, err := key(ctx, p)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	exists := s.folders[k]
	s.mu.RUnlock()
	if !exists {
		return nil, fmt.Errorf("reference: lock folder %q: %w", k, fs.ErrNotExist)
	}
	s.locksMu.Lock()
	ch, ok := s.locks[k]
	if !ok {
		ch = make(chan struct{}, 1)
		s.locks[k] = ch
	}
	s.locksMu.Unlock()
	select {
	case ch <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() { once.Do(func() { <-ch }) }, nil
}
