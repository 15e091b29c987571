//go:build unix

package storagefs

import "syscall"

// openNonBlock opens a FIFO without waiting for a writer, so ReadFile can
// refuse it instead of blocking; it changes nothing for regular files.
const openNonBlock = syscall.O_NONBLOCK

// openNoFollow refuses a symbolic link as the file opened (ELOOP).
const openNoFollow = syscall.O_NOFOLLOW
