package core

import "strings"

// isInsideRelPath reports whether p, a path read from a file or given by a
// caller, names a file inside the folder it is relative to: not empty, not
// absolute, no drive letter, no backslash, no NUL, and no "." or ".."
// segment and no empty segment. Vectra never writes anything but a plain
// file name ("<uuid>.json"), so this rejects nothing it wrote.
func isInsideRelPath(p string) bool {
	if p == "" || strings.ContainsAny(p, "\\\x00:") || strings.HasPrefix(p, "/") {
		return false
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
