package codecpb_test

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/foliovec/folio/core"
)

// memStorage is a minimal in-memory core.FileStorage for the LocalIndex
// tests (an adapter never imports another adapter, so not storage-mem).
type memStorage struct {
	mu    sync.Mutex
	files map[string][]byte
}

var _ core.FileStorage = (*memStorage)(nil)

func newMemStorage() *memStorage { return &memStorage{files: map[string][]byte{}} }

func (s *memStorage) CreateFile(_ context.Context, p string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.files[p]; ok {
		return fmt.Errorf("create %s: %w", p, fs.ErrExist)
	}
	s.files[p] = slices.Clone(b)
	return nil
}

func (s *memStorage) UpsertFile(_ context.Context, p string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[p] = slices.Clone(b)
	return nil
}

func (s *memStorage) ReadFile(_ context.Context, p string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.files[p]
	if !ok {
		return nil, fmt.Errorf("read %s: %w", p, fs.ErrNotExist)
	}
	return slices.Clone(b), nil
}

func (s *memStorage) DeleteFile(_ context.Context, p string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.files, p)
	return nil
}

func (s *memStorage) PathExists(_ context.Context, p string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.files[p]; ok {
		return true, nil
	}
	for k := range s.files {
		if strings.HasPrefix(k, p+"/") {
			return true, nil
		}
	}
	return false, nil
}

func (s *memStorage) CreateFolder(context.Context, string) error { return nil }

func (s *memStorage) DeleteFolder(_ context.Context, p string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.files {
		if strings.HasPrefix(k, p+"/") {
			delete(s.files, k)
		}
	}
	return nil
}

func (s *memStorage) GetDetails(ctx context.Context, p string) (core.FileDetails, error) {
	ok, _ := s.PathExists(ctx, p)
	if !ok {
		return core.FileDetails{}, fmt.Errorf("details %s: %w", p, fs.ErrNotExist)
	}
	s.mu.Lock()
	_, isFile := s.files[p]
	s.mu.Unlock()
	return core.FileDetails{Name: p[strings.LastIndex(p, "/")+1:], Path: p, IsFolder: !isFile}, nil
}

func (s *memStorage) ListFiles(_ context.Context, folder string, _ core.ListFilesFilter) ([]core.FileDetails, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.FileDetails
	for _, k := range slices.Sorted(maps.Keys(s.files)) {
		if rest, ok := strings.CutPrefix(k, folder+"/"); ok && !strings.Contains(rest, "/") {
			out = append(out, core.FileDetails{Name: rest, Path: k})
		}
	}
	return out, nil
}

// names lists the files under folder, sorted.
func (s *memStorage) names(folder string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.files {
		if rest, ok := strings.CutPrefix(k, folder+"/"); ok {
			out = append(out, rest)
		}
	}
	slices.Sort(out)
	return out
}
