package storagetest_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// refStore is a small in-memory storage written to keep every rule of the
// suite, confined to its top level. With bug set it breaks one rule on
// purpose, to show the suite notices (see bugs in storagetest_test.go).
type refStore struct {
	st  *refState
	bug string
}

type refState struct {
	mu      sync.RWMutex
	files   map[string][]byte
	folders map[string]bool // "" (the root) is always present
}

func newRefStore(bug string) *refStore {
	return &refStore{bug: bug, st: &refState{files: map[string][]byte{}, folders: map[string]bool{"": true}}}
}

var _ core.FileStorage = (*refStore)(nil)

var errKind = errors.New("wrong kind of entry")

// key checks ctx and p and returns p's key.
func (s *refStore) key(ctx context.Context, p string) (string, error) {
	if s.bug != "ignores context" {
		if err := ctx.Err(); err != nil {
			return "", err
		}
	}
	if s.bug == "raw paths" {
		return strings.TrimSuffix(p, "/"), nil
	}
	if s.bug != "escapes its root" {
		if strings.HasPrefix(p, "/") || pathutil.IsAbsolute(p) {
			return "", fmt.Errorf("ref: %q is absolute: %w", p, core.ErrInvalidArgument)
		}
		depth := 0
		for _, seg := range strings.Split(p, "/") {
			switch seg {
			case "", ".":
			case "..":
				if depth--; depth < 0 {
					return "", fmt.Errorf("ref: %q leaves the root: %w", p, core.ErrInvalidArgument)
				}
			default:
				depth++
			}
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
func (st *refState) checkParent(key string) error {
	parent := parentOf(key)
	if st.folders[parent] || parent == key {
		return nil
	}
	if _, isFile := st.files[parent]; isFile {
		return fmt.Errorf("ref: parent %q: %w", parent, errKind)
	}
	return fmt.Errorf("ref: parent %q: %w", parent, fs.ErrNotExist)
}

func (s *refStore) CreateFile(ctx context.Context, p string, content []byte) error {
	if s.bug == "create overwrites" {
		return s.UpsertFile(ctx, p, content)
	}
	key, err := s.key(ctx, p)
	if err != nil {
		return err
	}
	if s.bug == "create is not exclusive" {
		s.st.mu.RLock()
		_, exists := s.st.files[key]
		s.st.mu.RUnlock()
		if exists {
			return fs.ErrExist
		}
		time.Sleep(time.Millisecond)
		return s.UpsertFile(ctx, p, content)
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	if _, isFile := s.st.files[key]; isFile || s.st.folders[key] {
		return fmt.Errorf("ref: create %q: %w", key, fs.ErrExist)
	}
	if err := s.st.checkParent(key); err != nil && s.bug != "writes need no parent" {
		return err
	}
	s.st.files[key] = slices.Clone(content)
	return nil
}

func (s *refStore) UpsertFile(ctx context.Context, p string, content []byte) error {
	key, err := s.key(ctx, p)
	if err != nil {
		return err
	}
	if s.bug == "upsert tears" && len(content) > 1 {
		s.st.mu.Lock()
		s.st.files[key] = slices.Clone(content[:len(content)/2])
		s.st.mu.Unlock()
		time.Sleep(200 * time.Microsecond)
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	if s.st.folders[key] {
		return fmt.Errorf("ref: upsert %q: %w", key, errKind)
	}
	if err := s.st.checkParent(key); err != nil && s.bug != "writes need no parent" {
		return err
	}
	if s.bug == "writes alias the caller's bytes" {
		s.st.files[key] = content
	} else {
		s.st.files[key] = slices.Clone(content)
	}
	return nil
}

func (s *refStore) ReadFile(ctx context.Context, p string) ([]byte, error) {
	key, err := s.key(ctx, p)
	if err != nil {
		return nil, err
	}
	s.st.mu.RLock()
	defer s.st.mu.RUnlock()
	content, ok := s.st.files[key]
	switch {
	case ok && s.bug == "reads share the stored bytes":
		return content, nil
	case ok:
		return append([]byte{}, content...), nil
	case s.st.folders[key]:
		return nil, fmt.Errorf("ref: read %q: %w", key, errKind)
	case s.bug == "read of missing is nil, nil":
		return nil, nil
	}
	return nil, fmt.Errorf("ref: read %q: %w", key, fs.ErrNotExist)
}

func (s *refStore) DeleteFile(ctx context.Context, p string) error {
	key, err := s.key(ctx, p)
	if err != nil {
		return err
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	if s.st.folders[key] {
		return fmt.Errorf("ref: delete file %q: %w", key, errKind)
	}
	if _, ok := s.st.files[key]; !ok && s.bug == "delete of missing fails" {
		return fs.ErrNotExist
	}
	delete(s.st.files, key)
	return nil
}

func (s *refStore) PathExists(ctx context.Context, p string) (bool, error) {
	key, err := s.key(ctx, p)
	if err != nil {
		return false, err
	}
	s.st.mu.RLock()
	defer s.st.mu.RUnlock()
	_, isFile := s.st.files[key]
	return isFile || s.st.folders[key], nil
}

func (s *refStore) CreateFolder(ctx context.Context, p string) error {
	key, err := s.key(ctx, p)
	if err != nil {
		return err
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	if _, isFile := s.st.files[key]; isFile {
		return fmt.Errorf("ref: create folder %q: %w", key, fs.ErrExist)
	}
	if s.bug == "folders get no parents" {
		s.st.folders[key] = true
		return nil
	}
	var missing []string
	for k := key; !s.st.folders[k]; k = parentOf(k) {
		if _, isFile := s.st.files[k]; isFile {
			return fmt.Errorf("ref: create folder %q: %q: %w", key, k, errKind)
		}
		missing = append(missing, k)
	}
	for _, k := range missing {
		s.st.folders[k] = true
	}
	return nil
}

func (s *refStore) DeleteFolder(ctx context.Context, p string) error {
	key, err := s.key(ctx, p)
	if err != nil {
		return err
	}
	if key == "" {
		return fmt.Errorf("ref: delete the root: %w", core.ErrInvalidArgument)
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	if _, isFile := s.st.files[key]; isFile {
		return fmt.Errorf("ref: delete folder %q: %w", key, errKind)
	}
	prefix := key + "/"
	switch s.bug {
	case "delete folder is shallow":
		prefix = "\x00" // matches nothing
	case "delete folder matches name prefixes":
		prefix = key
	}
	delete(s.st.folders, key)
	for k := range s.st.folders {
		if strings.HasPrefix(k, prefix) {
			delete(s.st.folders, k)
		}
	}
	for k := range s.st.files {
		if strings.HasPrefix(k, prefix) {
			delete(s.st.files, k)
		}
	}
	return nil
}

func (s *refStore) GetDetails(ctx context.Context, p string) (core.FileDetails, error) {
	if s.bug == "details panic" {
		panic("ref: details panic")
	}
	key, err := s.key(ctx, p)
	if err != nil {
		return core.FileDetails{}, err
	}
	s.st.mu.RLock()
	defer s.st.mu.RUnlock()
	return s.st.details(key, s.bug)
}

func (st *refState) details(key, bug string) (core.FileDetails, error) {
	name := pathutil.Basename(key)
	if st.folders[key] {
		return core.FileDetails{Name: name, Path: key, IsFolder: true, FileType: core.FileTypeFolder}, nil
	}
	if _, ok := st.files[key]; ok {
		ft := core.GetFileType(name)
		if bug == "files have no type" {
			ft = ""
		}
		return core.FileDetails{Name: name, Path: key, FileType: ft}, nil
	}
	return core.FileDetails{}, fmt.Errorf("ref: details %q: %w", key, fs.ErrNotExist)
}

func (s *refStore) ListFiles(ctx context.Context, p string, filter core.ListFilesFilter) ([]core.FileDetails, error) {
	key, err := s.key(ctx, p)
	if err != nil {
		return nil, err
	}
	wantFiles, wantFolders := true, true
	switch filter {
	case core.ListAll, "":
	case core.ListFilesOnly:
		wantFolders = false
	case core.ListFoldersOnly:
		wantFiles = false
	default:
		return nil, fmt.Errorf("ref: list %q: filter %q: %w", key, filter, core.ErrInvalidArgument)
	}
	if s.bug == "list ignores the filter" {
		wantFiles, wantFolders = true, true
	}
	s.st.mu.RLock()
	defer s.st.mu.RUnlock()
	if !s.st.folders[key] {
		if _, isFile := s.st.files[key]; isFile {
			return nil, fmt.Errorf("ref: list %q: %w", key, errKind)
		}
		return nil, fmt.Errorf("ref: list %q: %w", key, fs.ErrNotExist)
	}
	var out []core.FileDetails
	for k := range s.st.folders {
		if wantFolders && k != "" && parentOf(k) == key {
			d, _ := s.st.details(k, s.bug)
			out = append(out, d)
		}
	}
	for k := range s.st.files {
		if wantFiles && parentOf(k) == key {
			d, _ := s.st.details(k, s.bug)
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b core.FileDetails) int { return strings.Compare(a.Name, b.Name) })
	if s.bug == "list is not sorted" {
		slices.Reverse(out)
	}
	return out, nil
}

var _ core.GroupWriter = (*refStore)(nil)

// WriteFiles upserts every file in order, stopping at the first failure.
func (s *refStore) WriteFiles(ctx context.Context, files []core.FileWrite) error {
	if s.bug == "group write drops the last file" && len(files) > 1 {
		files = files[:len(files)-1]
	}
	for _, f := range files {
		content := f.Content
		if s.bug != "group write aliases the caller's bytes" {
			content = slices.Clone(content)
		}
		if err := s.UpsertFile(ctx, f.Path, content); err != nil {
			return err
		}
		if s.bug == "group write aliases the caller's bytes" {
			key, _ := s.key(ctx, f.Path)
			s.st.mu.Lock()
			s.st.files[key] = f.Content
			s.st.mu.Unlock()
		}
	}
	return nil
}
