package storagefs

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/foliovec/folio/core"
)

var _ core.FileRangeReader = (*LocalFileStorage)(nil)

// OpenFileRange opens a regular file for reads of its parts (pread(2)),
// the same files as ReadFile opens, with the same errors, and no size
// limit. A segmented index reads its files so where they are not mapped
// (MapFile is Unix's): one with 4-bit codes then reads its vectors a few
// rows a query. Reads see the file as it is: Folio opens so only files it
// never changes in place, and an open file stays readable once deleted on
// Unix.
func (s *LocalFileStorage) OpenFileRange(ctx context.Context, filePath string) (core.RangeFile, error) {
	f, size, err := s.openRegular(ctx, "open file", filePath, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	return &rangeFile{f: f, size: size, path: filePath}, nil
}

// rangeFile is a file opened by OpenFileRange.
type rangeFile struct {
	f    *os.File
	size int64
	path string
}

func (r *rangeFile) Size() int64 { return r.size }

func (r *rangeFile) ReadRange(ctx context.Context, p []byte, off int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if off < 0 || off > r.size || int64(len(p)) > r.size-off {
		return fmt.Errorf("storagefs: read %q at %d: %w", r.path, off, io.ErrUnexpectedEOF)
	}
	if _, err := r.f.ReadAt(p, off); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // cut short since it was opened
		}
		return fmt.Errorf("storagefs: read %q at %d: %w", r.path, off, err)
	}
	return nil
}

func (r *rangeFile) Close() error { return r.f.Close() }
