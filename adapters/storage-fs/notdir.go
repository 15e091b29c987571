package storagefs

import (
	"errors"
	"io/fs"
	"syscall"
)

// missing reports whether err says nothing is at a path: it does not exist,
// or one of its parents is a file (ENOTDIR), which for a reader is the same.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
