//go:build unix

package storagefs

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// holdTemp marks the temporary file name, just created as f, as the file
// of a write in progress: it opens name again and takes an exclusive
// flock(2) on that second descriptor, which the kernel releases when the
// writer closes it or dies. RemoveTempFiles removes only temporary files
// whose lock it can take, so it never removes one a live write holds, and
// removes one whose writer was killed at once, whatever its age. The
// writer's own descriptor, f, is closed (and its error checked) before
// the rename, without releasing the lock.
//
// A remover may take the file between its creation and the lock: then
// name no longer opens, or no longer names f's file, and holdTemp returns
// errTempTaken so that the writer draws another name.
func (s *LocalFileStorage) holdTemp(name string, f *os.File) (release func(), err error) {
	h, err := s.fsys.Open(name)
	if err != nil {
		if missing(err) {
			return nil, errTempTaken
		}
		return nil, err
	}
	if err := lockFile(h); err != nil {
		// A file system without flock (some network ones): the file is
		// not held, and RemoveTempFiles goes by its age.
		h.Close()
		return func() {}, nil
	}
	mine, err1 := f.Stat()
	held, err2 := h.Stat()
	now, err3 := s.fsys.Lstat(name)
	if err := errors.Join(err1, err2, err3); err != nil {
		h.Close()
		if missing(err3) {
			return nil, errTempTaken
		}
		return nil, err
	}
	if !os.SameFile(mine, held) || !os.SameFile(mine, now) {
		h.Close()
		return nil, errTempTaken
	}
	return func() { h.Close() }, nil
}

// tempState tells whether the temporary file name's write has ended (its
// writer closed it or died: its lock is free), is alive (the lock is
// held), or cannot be told (no such file, or no flock here). For an ended
// write it holds the lock until release is called, so that the file can be
// removed before any writer could take it.
func (s *LocalFileStorage) tempState(name string) (state tempWrite, release func()) {
	h, err := s.fsys.Open(name)
	if err != nil {
		return writeUnknown, nil
	}
	for {
		err = unix.Flock(int(h.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	switch {
	case err == nil:
		return writeEnded, func() { h.Close() }
	case errors.Is(err, unix.EWOULDBLOCK):
		h.Close()
		return writeAlive, nil
	default:
		h.Close()
		return writeUnknown, nil
	}
}
