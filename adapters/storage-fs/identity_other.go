//go:build !unix

package storagefs

import "io/fs"

// fileIdentity is "" where the standard library's FileInfo carries no file
// identity: size and modification time then tell versions apart.
func fileIdentity(fs.FileInfo) string { return "" }
