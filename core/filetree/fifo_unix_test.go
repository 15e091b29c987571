//go:build unix

package filetree_test

import "syscall"

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }
