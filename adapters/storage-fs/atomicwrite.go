package storagefs

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// writeTemp writes content to a new temporary file in dir, syncs and
// closes it, and returns its name and the release of its hold (see
// holdTemp), to call once the file is renamed or linked into place. On
// failure nothing is left behind.
func (s *LocalFileStorage) writeTemp(dir string, content []byte) (string, func(), error) {
	return s.writeTempFile(dir, content, true)
}

// writeTempFile is writeTemp that syncs the file only when sync is set.
func (s *LocalFileStorage) writeTempFile(dir string, content []byte, sync bool) (string, func(), error) {
	return s.writeTempWith(dir, func(f *os.File) error {
		_, err := f.Write(content)
		return err
	}, sync)
}

// writeTempWith writes what write writes to a new temporary file in dir,
// syncs it when sync is set, and returns its name and the release of its
// hold; on any error the file is removed and released.
func (s *LocalFileStorage) writeTempWith(dir string, write func(f *os.File) error, sync bool) (string, func(), error) {
	for range 16 {
		name := filepath.Join(dir, fmt.Sprintf("%s%016x", TempPrefix, rand.Uint64()))
		f, err := s.fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue // another writer's temporary name: draw again
		}
		if err != nil {
			return "", nil, err
		}
		release, err := s.holdTemp(name, f)
		if errors.Is(err, errTempTaken) {
			f.Close()
			continue
		}
		if err != nil {
			f.Close()
			s.fsys.Remove(name)
			return "", nil, err
		}
		err = write(f)
		if err == nil && sync {
			err = f.Sync()
		}
		if err := closeFile(f, err); err != nil {
			s.fsys.Remove(name)
			release()
			return "", nil, err
		}
		return name, release, nil
	}
	return "", nil, fmt.Errorf("no free temporary name in %q", dir)
}

// createInPlace creates name exclusively and writes content to it: the
// fallback of CreateFile where hard links are not supported. A failed
// write removes the partial file.
func (s *LocalFileStorage) createInPlace(name string, content []byte) error {
	f, err := s.fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	if err := writeAndClose(f, content, true); err != nil {
		s.fsys.Remove(name)
		return err
	}
	return nil
}

// writeAndClose writes content to f, syncs it to stable storage when sync
// is set, and closes it, returning the first error.
func writeAndClose(f *os.File, content []byte, sync bool) error {
	_, err := f.Write(content)
	if err == nil && sync {
		err = f.Sync()
	}
	return closeFile(f, err)
}
