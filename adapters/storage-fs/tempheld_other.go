//go:build !unix

package storagefs

import "os"

// holdTemp does nothing where temporary files are not locked: there
// RemoveTempFiles goes by age alone.
func (s *LocalFileStorage) holdTemp(string, *os.File) (release func(), err error) {
	return func() {}, nil
}

// tempState cannot tell here: RemoveTempFiles goes by age alone.
func (s *LocalFileStorage) tempState(string) (state tempWrite, release func()) {
	return writeUnknown, nil
}
