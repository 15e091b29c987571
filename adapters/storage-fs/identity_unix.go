//go:build unix

package storagefs

import (
	"io/fs"
	"strconv"
	"syscall"
)

// fileIdentity is the device and inode of the file fi describes.
func fileIdentity(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return strconv.FormatUint(uint64(st.Dev), 10) + "." + strconv.FormatUint(uint64(st.Ino), 10)
}
