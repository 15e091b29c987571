//go:build unix

package storagefs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"syscall"

	"github.com/foliovec/folio/core"
)

var _ core.FileMapper = (*LocalFileStorage)(nil)

// MapFile maps a regular file read-only with mmap(2) (MAP_SHARED), the
// same files as ReadFile opens, with the same errors. MaxReadSize does not
// apply: a mapping takes no memory of the process's own, and a segment of
// 10M×384 vectors is 17.6 GB. An empty file maps to no bytes. The mapping stays valid after the
// file is deleted or replaced by a rename, as Folio replaces files; a file
// truncated in place while mapped makes reads past its new end fault, so
// Folio maps only files it never changes in place.
func (s *LocalFileStorage) MapFile(ctx context.Context, filePath string) (core.MappedFile, error) {
	const op = "map file"
	f, size, err := s.openRegular(ctx, op, filePath, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	if size == 0 {
		return &mapping{}, f.Close()
	}
	if int64(int(size)) != size {
		f.Close()
		return nil, fmt.Errorf("storagefs: %s %q: %d bytes do not fit in memory: %w", op, filePath, size, ErrTooLarge)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("storagefs: %s %q: %w", op, filePath, err)
	}
	return &mapping{b: b, f: f}, nil
}

// mapping is a file mapped by MapFile. It keeps the file open for ReadAt.
type mapping struct {
	b []byte
	f *os.File

	mu     sync.Mutex // orders Close and ReleasePages
	closed bool
}

var _ io.ReaderAt = (*mapping)(nil)

func (m *mapping) Bytes() []byte { return m.b }

// ReadAt reads the mapped file's bytes at off with pread(2), through the
// page cache, without bringing the mapping's pages into the process's
// memory (core.MappedFile). It fails once the mapping is closed.
func (m *mapping) ReadAt(p []byte, off int64) (int, error) {
	if m.f == nil {
		if off >= 0 && len(p) > 0 {
			return 0, io.EOF
		}
		return 0, nil
	}
	return m.f.ReadAt(p, off)
}

func (m *mapping) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.b == nil {
		m.closed = true
		return nil
	}
	m.closed = true
	return errors.Join(syscall.Munmap(m.b), m.f.Close())
}
