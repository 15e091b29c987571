//go:build unix || windows

package storagefs

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/foliovec/folio/core"
)

var _ core.FolderLocker = (*LocalFileStorage)(nil)

// LockFolder implements [core.FolderLocker] with an exclusive lock on the
// file [LockFile] in the folder, created when missing: flock(2) on Unix,
// LockFileEx on Windows. The operating system releases it when the process
// ends, however it ends, so a killed writer never leaves a folder locked.
// The lock is per call, not per process: two LockFolder calls on one
// folder exclude each other also within a process. While waiting it
// honours ctx: a wait that ctx ends returns ctx's error, and the lock, if
// the operating system grants it later, is released at once. A missing
// folder wraps fs.ErrNotExist.
//
// Operating-system file locks are only as good as the file system's: on a
// network file system they may not be shared between machines.
func (s *LocalFileStorage) LockFolder(ctx context.Context, folderPath string) (func(), error) {
	const op = "lock folder"
	t, err := s.resolve(ctx, op, folderPath)
	if err != nil {
		return nil, err
	}
	f, err := s.fsys.OpenFile(filepath.Join(t.name, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, s.fail(op, folderPath, err)
	}
	done := make(chan error, 1)
	go func() { done <- lockFile(f) }()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, s.fail(op, folderPath, err)
		}
	case <-ctx.Done():
		// The blocked call cannot be interrupted: let it finish and close
		// the file, which releases the lock if it was granted.
		go func() {
			<-done
			f.Close()
		}()
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() {
		// Closing the file releases its lock.
		once.Do(func() { f.Close() })
	}, nil
}
