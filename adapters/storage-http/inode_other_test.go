//go:build !unix

package storagehttp_test

import "os"

// inode is 0 where the test cannot learn it.
func inode(os.FileInfo) uint64 { return 0 }
