package storagefs

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/foliovec/folio/core"
)

var _ core.TempFileRemover = (*LocalFileStorage)(nil)

// tempWrite is what RemoveTempFiles can tell of a temporary file's write.
type tempWrite int

const (
	writeUnknown tempWrite = iota // go by the file's age
	writeAlive                    // a live writer holds it: keep it
	writeEnded                    // its writer closed it or died: remove it
)

// errTempTaken is holdTemp's answer when RemoveTempFiles took the file
// between its creation and its lock: the writer draws another name.
var errTempTaken = errors.New("temporary file removed before it was held")

// RemoveTempFiles implements [core.TempFileRemover]: it removes the files
// named [TempPrefix]… directly in folderPath that interrupted writes left,
// and returns how many. On Unix a write holds an flock(2) on its temporary
// file until the file is renamed into place, and the kernel releases it
// when the writer dies: a file whose lock is free is removed whatever its
// age, one whose lock is held never is. Where locks are not available (a
// file system without flock, or Windows), a file is removed once last
// modified more than olderThan ago. A missing folder removes nothing.
func (s *LocalFileStorage) RemoveTempFiles(ctx context.Context, folderPath string, olderThan time.Duration) (int, error) {
	const op = "remove temp files"
	t, err := s.resolve(ctx, op, folderPath)
	if err != nil {
		return 0, err
	}
	entries, err := s.readDir(t.name)
	if missing(err) && !s.isEscape(err) {
		return 0, nil
	}
	if err != nil {
		return 0, s.fail(op, folderPath, err)
	}
	cutoff := time.Now().Add(-olderThan)
	n := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), TempPrefix) || !e.Type().IsRegular() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return n, err
		}
		name := filepath.Join(t.name, e.Name())
		state, release := s.tempState(name)
		switch state {
		case writeAlive:
			continue
		case writeUnknown:
			if info, err := e.Info(); err != nil || info.ModTime().After(cutoff) {
				continue
			}
		}
		err := s.fsys.Remove(name)
		if release != nil {
			release()
		}
		if err != nil && !missing(err) {
			return n, s.fail(op, folderPath, err)
		}
		if err == nil {
			n++
		}
	}
	return n, nil
}
