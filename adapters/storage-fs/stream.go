package storagefs

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/foliovec/folio/core"
)

var (
	_ core.FileStreamer     = (*LocalFileStorage)(nil)
	_ core.FileStreamWriter = (*LocalFileStorage)(nil)
)

// OpenFile opens a regular file for reading, as a stream, and returns its
// size; the same files as ReadFile open, with the same errors (a missing
// file wraps fs.ErrNotExist, a folder or a FIFO is refused, a file larger
// than Options.MaxReadSize wraps ErrTooLarge). Reads return ctx's error
// once ctx ends, and an error wrapping ErrTooLarge past MaxReadSize bytes
// (the file grew). The caller closes rc.
func (s *LocalFileStorage) OpenFile(ctx context.Context, filePath string) (rc io.ReadCloser, size int64, err error) {
	const op = "open file"
	f, size, err := s.openRegular(ctx, op, filePath, s.maxRead)
	if err != nil {
		return nil, 0, err
	}
	return &fileStream{ctx: ctx, f: f, left: s.maxRead, path: filePath, max: s.maxRead}, size, nil
}

// fileStream is an open file read under a context and a size limit.
type fileStream struct {
	ctx  context.Context
	f    *os.File
	left int64 // bytes still allowed
	path string
	max  int64
}

func (r *fileStream) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	if r.left <= 0 {
		// At the limit: one more byte means the file grew past it.
		var one [1]byte
		if n, _ := r.f.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("storagefs: read %q: grew past %d bytes: %w", r.path, r.max, ErrTooLarge)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.f.Read(p)
	r.left -= int64(n)
	return n, err
}

func (r *fileStream) Close() error { return r.f.Close() }
