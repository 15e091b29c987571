//go:build unix

package storagefs

import (
	"errors"
	"syscall"
)

// syncDir makes the entries of folder dir (a created, renamed or removed
// file) durable by fsyncing the folder. File systems that cannot fsync a
// folder (EINVAL, ENOTSUP) are taken as having nothing to flush.
func syncDir(fsys filesystem, dir string) error {
	f, err := fsys.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil
	}
	return err
}
