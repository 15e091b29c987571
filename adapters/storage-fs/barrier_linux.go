package storagefs

import "golang.org/x/sys/unix"

// deferSync: on Linux syncfs makes the files of a group durable at the
// barrier, so they are not synced one by one.
const deferSync = true

// barrier makes every write to the file system holding folder dir durable
// with syncfs(2), renames included.
func (s *LocalFileStorage) barrier(dir string) error {
	f, err := s.fsys.Open(dir)
	if err != nil {
		return err
	}
	return closeFile(f, unix.Syncfs(int(f.Fd())))
}
