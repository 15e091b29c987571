package filetree

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/foliovec/folio/core"
)

// DefaultMaxFileBytes is the size cap of ReadOptions.MaxBytes' zero value:
// 20 MiB, the web fetcher's cap on a page.
const DefaultMaxFileBytes = 20 << 20

// ErrBinary is the reason a file is not read as text: a NUL byte in its
// first 8 KiB (core.LooksBinary). A binary extension is for the caller to
// judge before it reads: core.LooksBinary(path, nil).
var ErrBinary = errors.New("binary file")

// ErrTooLarge is the reason a file over the size cap is not read.
var ErrTooLarge = errors.New("file too large")

// sniffLen is how much of a file ReadFile reads before it decides whether
// the file is text.
const sniffLen = 8 << 10

// ReadOptions configure ReadFile. The zero value is the default: binary
// files skipped, 20 MiB at most.
type ReadOptions struct {
	// IncludeBinary reads files with a NUL byte near the start too.
	IncludeBinary bool
	// MaxBytes caps a file's size; a larger file is ErrTooLarge, unread.
	// 0 means DefaultMaxFileBytes; a negative value means no cap.
	MaxBytes int64
}

// ReadFile returns the content of the regular file at path, unless it is
// binary (an error wrapping ErrBinary) or larger than the cap (one
// wrapping ErrTooLarge). Its size is looked at before anything is read,
// and its first 8 KiB before the rest, so a file that is skipped costs a
// few kilobytes of memory whatever its size.
func ReadFile(path string, opts *ReadOptions) ([]byte, error) {
	var o ReadOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxFileBytes
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	size := info.Size()
	if o.MaxBytes > 0 && size > o.MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes, over the cap of %d", ErrTooLarge, size, o.MaxBytes)
	}
	head := make([]byte, min(size, sniffLen))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	head = head[:n]
	if !o.IncludeBinary && core.LooksBinary("", head) {
		return nil, ErrBinary
	}
	// The rest: as much as Stat said, and a byte more to see whether the
	// file grew past the cap since.
	content := make([]byte, n, size+1)
	copy(content, head)
	var r io.Reader = f
	if o.MaxBytes > 0 {
		r = io.LimitReader(f, o.MaxBytes-int64(n)+1)
	}
	for {
		if len(content) == cap(content) {
			content = append(content, 0)[:len(content)]
		}
		m, err := r.Read(content[len(content):cap(content)])
		content = content[:len(content)+m]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if o.MaxBytes > 0 && int64(len(content)) > o.MaxBytes {
		return nil, fmt.Errorf("%w: it grew past the cap of %d bytes while read", ErrTooLarge, o.MaxBytes)
	}
	return content, nil
}
