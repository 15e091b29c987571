package storagefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// writeTemp writes content to a new temporary file in dir, syncs and
// closes it, and returns its name. On failure nothing is left behind.
func (s *LocalFileStorage) writeTemp(dir string, content []byte) (string, error) {
	return s.writeTempFile(dir, content, true)
}

// writeTempFile is writeTemp that syncs the file only when sync is set.
func (s *LocalFileStorage) writeTempFile(dir string, content []byte, sync bool) (string, error) {
	return s.writeTempWith(dir, func(w io.Writer) error {
		_, err := w.Write(content)
		return err
	}, sync)
}

// writeTempWith writes what write writes to a new temporary file in dir,
// syncs it when sync is set, and returns its name; on any error the file
// is removed.
func (s *LocalFileStorage) writeTempWith(dir string, write func(w io.Writer) error, sync bool) (string, error) {
	for range 16 {
		name := filepath.Join(dir, fmt.Sprintf("%s%016x", TempPrefix, rand.Uint64()))
		f, err := s.fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue // another writer's temporary name: draw again
		}
		if err != nil {
			return "", err
		}
		err = write(f)
		if err == nil && sync {
			err = f.Sync()
		}
		if err := closeFile(f, err); err != nil {
			s.fsys.Remove(name)
			return "", err
		}
		return name, nil
	}
	return "", fmt.Errorf("no free temporary name in %q", dir)
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
