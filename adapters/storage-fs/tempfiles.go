package storagefs

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/foliovec/folio/core"
)

var _ core.TempFileRemover = (*LocalFileStorage)(nil)

// RemoveTempFiles implements [core.TempFileRemover]: it removes the files
// named [TempPrefix]… directly in folderPath that were last modified more
// than olderThan ago — what a crash during a write leaves — and returns how
// many. A missing folder removes nothing.
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
		info, err := e.Info()
		if err != nil || info.ModTime().After(cutoff) {
			continue
		}
		if err := s.fsys.Remove(filepath.Join(t.name, e.Name())); err != nil && !missing(err) {
			return n, s.fail(op, folderPath, err)
		}
		n++
	}
	return n, nil
}
