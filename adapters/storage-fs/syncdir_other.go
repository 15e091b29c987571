//go:build !unix

package storagefs

// syncDir does nothing where folders cannot be fsynced through package os
// (Windows, Plan 9, js, wasip1): there the rename itself is the commit.
func syncDir(filesystem, string) error { return nil }
