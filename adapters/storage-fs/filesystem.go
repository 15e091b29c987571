package storagefs

import (
	"io/fs"
	"os"
)

// filesystem is the part of the operating system's file API the storage
// uses. *os.Root provides it confined to a directory tree (Options.Root);
// osFS provides it unconfined (New).
type filesystem interface {
	Open(name string) (*os.File, error)
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	MkdirAll(name string, perm fs.FileMode) error
	Remove(name string) error
	RemoveAll(name string) error
	Rename(oldname, newname string) error
	Link(oldname, newname string) error
}

var _ filesystem = (*os.Root)(nil)

// osFS is the whole file system, through package os.
type osFS struct{}

func (osFS) Open(name string) (*os.File, error) { return os.Open(name) }
func (osFS) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
func (osFS) Stat(name string) (fs.FileInfo, error)        { return os.Stat(name) }
func (osFS) Lstat(name string) (fs.FileInfo, error)       { return os.Lstat(name) }
func (osFS) MkdirAll(name string, perm fs.FileMode) error { return os.MkdirAll(name, perm) }
func (osFS) Remove(name string) error                     { return os.Remove(name) }
func (osFS) RemoveAll(name string) error                  { return os.RemoveAll(name) }
func (osFS) Rename(oldname, newname string) error         { return os.Rename(oldname, newname) }
func (osFS) Link(oldname, newname string) error           { return os.Link(oldname, newname) }
