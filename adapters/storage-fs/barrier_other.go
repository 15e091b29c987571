//go:build !linux

package storagefs

// deferSync: without syncfs each file of a group is synced before its
// rename, and the barrier syncs the folder.
const deferSync = false

// barrier makes the renames into folder dir durable.
func (s *LocalFileStorage) barrier(dir string) error { return syncDir(s.fsys, dir) }
