package storagemem

import (
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"sync"

	"github.com/foliovec/folio/core"
)

var (
	_ core.FolderLocker  = (*VirtualFileStorage)(nil)
	_ core.FileVersioner = (*VirtualFileStorage)(nil)
)

// folderLocks are the folder locks of one storage: a one-slot channel per
// locked folder, made on first use. The zero value is ready for use.
type folderLocks struct {
	mu    sync.Mutex
	slots map[string]chan struct{} // by normalised folder key
}

// slot returns the lock channel of the folder key.
func (l *folderLocks) slot(k string) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.slots == nil {
		l.slots = map[string]chan struct{}{}
	}
	ch, ok := l.slots[k]
	if !ok {
		ch = make(chan struct{}, 1)
		l.slots[k] = ch
	}
	return ch
}

// LockFolder implements [core.FolderLocker] with an in-process lock per
// folder, shared by every user of this storage value. It waits while the
// folder is locked, until ctx ends; a missing folder wraps fs.ErrNotExist.
func (s *VirtualFileStorage) LockFolder(ctx context.Context, folderPath string) (func(), error) {
	k, err := key(ctx, folderPath)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	e, ok := s.entries[k]
	s.mu.RUnlock()
	switch {
	case !ok:
		return nil, fmt.Errorf("storagemem: lock folder %q: %w", folderPath, fs.ErrNotExist)
	case !e.folder:
		return nil, fmt.Errorf("storagemem: lock folder %q: %w", folderPath, errIsFile)
	}
	ch := s.locks.slot(k)
	select {
	case ch <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() { once.Do(func() { <-ch }) }, nil
}

// FileVersion implements [core.FileVersioner]: the file's generation, a
// number the storage gives every file write, so a file replaced with the
// same bytes still gets a new version. A missing file wraps
// fs.ErrNotExist.
func (s *VirtualFileStorage) FileVersion(ctx context.Context, filePath string) (string, error) {
	k, err := key(ctx, filePath)
	if err != nil {
		return "", err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.entries[k]
	switch {
	case !ok:
		return "", fmt.Errorf("storagemem: file version %q: %w", filePath, fs.ErrNotExist)
	case e.folder:
		return "", fmt.Errorf("storagemem: file version %q: %w", filePath, errIsFolder)
	}
	return strconv.FormatUint(e.gen, 10), nil
}
