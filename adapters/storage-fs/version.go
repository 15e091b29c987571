package storagefs

import (
	"context"
	"fmt"

	"github.com/foliovec/folio/core"
)

var _ core.FileVersioner = (*LocalFileStorage)(nil)

// FileVersion implements [core.FileVersioner] with one stat: the file's
// identity (device and inode, where the platform has them), size and
// modification time, in nanoseconds. Every write of this storage replaces
// the file by a rename, so it gets a new identity even when size and time
// happen to agree. A missing file wraps fs.ErrNotExist; a folder is an
// error.
func (s *LocalFileStorage) FileVersion(ctx context.Context, filePath string) (string, error) {
	const op = "file version"
	t, err := s.resolve(ctx, op, filePath)
	if err != nil {
		return "", err
	}
	fi, err := s.fsys.Stat(t.name)
	if err != nil {
		return "", s.fail(op, filePath, err)
	}
	if fi.IsDir() {
		return "", s.fail(op, filePath, errIsFolder)
	}
	return fmt.Sprintf("%s:%d:%d", fileIdentity(fi), fi.Size(), fi.ModTime().UnixNano()), nil
}
