package core

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
)

// memTestStorage is the in-memory FileStorage of core's tests. It
// records calls, fails the writes or deletes a test asks it to, and can
// crash: from the Nth mutation on (writes and deletes counted from 1),
// every mutation fails, as if the process had died at that point.
type memTestStorage struct {
	mu      sync.Mutex
	files   map[string][]byte
	folders map[string]bool
	reads   map[string]int
	writes  []string // paths written, in order
	deletes []string // paths deleted, in order

	failWrite  func(path string) error
	failDelete func(path string) error
	crashAt    int // 0: never
	mutations  int
}

var _ FileStorage = (*memTestStorage)(nil)

var errMemTestCrash = errors.New("test storage: crashed")

func newMemTestStorage() *memTestStorage {
	return &memTestStorage{files: map[string][]byte{}, folders: map[string]bool{}, reads: map[string]int{}}
}

// mutate counts a mutation and reports whether it must fail.
func (m *memTestStorage) mutate() error {
	m.mutations++
	if m.crashAt > 0 && m.mutations >= m.crashAt {
		return errMemTestCrash
	}
	return nil
}

func (m *memTestStorage) write(ctx context.Context, p string, content []byte, create bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.mutate(); err != nil {
		return err
	}
	if m.failWrite != nil {
		if err := m.failWrite(p); err != nil {
			return err
		}
	}
	if _, ok := m.files[p]; ok && create {
		return fmt.Errorf("create %q: %w", p, fs.ErrExist)
	}
	m.files[p] = slices.Clone(content)
	m.writes = append(m.writes, p)
	return nil
}

func (m *memTestStorage) CreateFile(ctx context.Context, p string, content []byte) error {
	return m.write(ctx, p, content, true)
}

func (m *memTestStorage) UpsertFile(ctx context.Context, p string, content []byte) error {
	return m.write(ctx, p, content, false)
}

func (m *memTestStorage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads[p]++
	b, ok := m.files[p]
	if !ok {
		return nil, fmt.Errorf("read %q: %w", p, fs.ErrNotExist)
	}
	return slices.Clone(b), nil
}

func (m *memTestStorage) DeleteFile(ctx context.Context, p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.mutate(); err != nil {
		return err
	}
	if m.failDelete != nil {
		if err := m.failDelete(p); err != nil {
			return err
		}
	}
	delete(m.files, p)
	m.deletes = append(m.deletes, p)
	return nil
}

func (m *memTestStorage) PathExists(ctx context.Context, p string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[p]; ok {
		return true, nil
	}
	return m.folders[p], nil
}

func (m *memTestStorage) CreateFolder(ctx context.Context, p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.folders[p] = true
	return nil
}

func (m *memTestStorage) DeleteFolder(ctx context.Context, p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for f := range m.folders {
		if f == p || strings.HasPrefix(f, p+"/") {
			delete(m.folders, f)
		}
	}
	for f := range m.files {
		if strings.HasPrefix(f, p+"/") {
			delete(m.files, f)
		}
	}
	return nil
}

func (m *memTestStorage) GetDetails(ctx context.Context, p string) (FileDetails, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name := p[strings.LastIndex(p, "/")+1:]
	if _, ok := m.files[p]; ok {
		return FileDetails{Name: name, Path: p}, nil
	}
	if m.folders[p] {
		return FileDetails{Name: name, Path: p, IsFolder: true, FileType: FileTypeFolder}, nil
	}
	return FileDetails{}, fmt.Errorf("details %q: %w", p, fs.ErrNotExist)
}

func (m *memTestStorage) ListFiles(ctx context.Context, folder string, filter ListFilesFilter) ([]FileDetails, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []FileDetails
	subfolders := map[string]bool{}
	for f := range m.files {
		rest, ok := strings.CutPrefix(f, folder+"/")
		if !ok {
			continue
		}
		if sub, _, nested := strings.Cut(rest, "/"); nested {
			subfolders[sub] = true
		} else if filter != ListFoldersOnly {
			out = append(out, FileDetails{Name: rest, Path: f})
		}
	}
	for f := range m.folders {
		if rest, ok := strings.CutPrefix(f, folder+"/"); ok && rest != "" {
			sub, _, _ := strings.Cut(rest, "/")
			subfolders[sub] = true
		}
	}
	if filter != ListFilesOnly {
		for sub := range subfolders {
			out = append(out, FileDetails{Name: sub, Path: folder + "/" + sub, IsFolder: true, FileType: FileTypeFolder})
		}
	}
	slices.SortFunc(out, func(a, b FileDetails) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// fileNames lists the names of the files directly in folder, sorted.
func (m *memTestStorage) fileNames(folder string) []string {
	fds, _ := m.ListFiles(context.Background(), folder, ListFilesOnly)
	out := []string{}
	for _, fd := range fds {
		out = append(out, fd.Name)
	}
	return out
}

func (m *memTestStorage) file(p string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[p]
	return b, ok
}

func (m *memTestStorage) readCount(p string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reads[p]
}

// writeCount is the number of successful writes of p.
func (m *memTestStorage) writeCount(p string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, w := range m.writes {
		if w == p {
			n++
		}
	}
	return n
}

func (m *memTestStorage) wrote(p string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Contains(m.writes, p)
}

// clone copies the files and folders (not the call records or failures).
func (m *memTestStorage) clone() *memTestStorage {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := newMemTestStorage()
	for k, v := range m.files {
		c.files[k] = slices.Clone(v)
	}
	for k, v := range m.folders {
		c.folders[k] = v
	}
	return c
}
