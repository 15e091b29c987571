package pathutil

import "strings"

// Sep is the separator of storage paths, on every platform.
const Sep = "/"

func isSep(r rune) bool { return r == '/' || r == '\\' }

// segments splits p on "/" and "\", keeping empty segments, like
// JavaScript's p.split(/[/\\]/): "" gives [""], "/a" gives ["", "a"].
func segments(p string) []string {
	return strings.Split(strings.ReplaceAll(p, `\`, Sep), Sep)
}

// isDrive reports whether seg is a drive letter and its colon, like "C:".
func isDrive(seg string) bool {
	return len(seg) == 2 && seg[1] == ':' && isLetter(seg[0])
}

// hasDrivePrefix reports whether p starts with a drive letter and a colon.
func hasDrivePrefix(p string) bool {
	return len(p) >= 2 && p[1] == ':' && isLetter(p[0])
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// Join joins parts with "/". The first part loses its trailing separators,
// every other part its leading and trailing ones, and parts left empty are
// dropped. Join resolves neither "." nor ".." (use [Normalize]) and keeps
// separators inside a part as given.
//
// Join("a/", "/b/", "c") is "a/b/c"; Join("idx", "../x") is "idx/../x".
//
// Fix over Vectra: a first part made only of separators, starting with "/",
// keeps the root, so
// Join("/", "a") is "/a" where Vectra gives "a".
func Join(parts ...string) string {
	var kept []string
	for i, part := range parts {
		if i == 0 {
			trimmed := strings.TrimRightFunc(part, isSep)
			if trimmed == "" && part != "" && part[0] == '/' {
				trimmed = Sep
			}
			part = trimmed
		} else {
			part = strings.TrimFunc(part, isSep)
		}
		if part != "" {
			kept = append(kept, part)
		}
	}
	if len(kept) > 1 && kept[0] == Sep {
		return Sep + strings.Join(kept[1:], Sep)
	}
	return strings.Join(kept, Sep)
}

// Basename returns the last segment of p. If an ext is given and the
// segment ends with it, it is removed; only the first ext is used.
//
// Basename("a/b/file.txt", ".txt") is "file"; Basename("a\\b\\file.txt") is
// "file.txt"; Basename("a/") is "".
func Basename(p string, ext ...string) string {
	segs := segments(p)
	base := segs[len(segs)-1]
	if len(ext) > 0 && ext[0] != "" {
		base = strings.TrimSuffix(base, ext[0])
	}
	return base
}

// Dirname returns every segment of p but the last, joined with "/", or "."
// when nothing is left.
//
// Dirname("a\\b\\file.txt") is "a/b"; Dirname("file.txt") is ".".
//
// Fix over Vectra: the parent of a top-level absolute path is the root, so
// Dirname("/a") and Dirname("/") are "/" where Vectra gives ".".
func Dirname(p string) string {
	segs := segments(p)
	dir := strings.Join(segs[:len(segs)-1], Sep)
	switch {
	case dir != "":
		return dir
	case p != "" && p[0] == '/':
		return Sep
	default:
		return "."
	}
}

// Extname returns the extension of p's last segment, from its last "." on,
// or "" when that dot is missing or first in the segment.
//
// Extname("file.spec.ts") is ".ts"; Extname(".gitignore") and
// Extname("Makefile") are "".
func Extname(p string) string {
	base := Basename(p)
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		return base[i:]
	}
	return ""
}

// Normalize resolves p lexically: it splits p on "/" and "\", drops "." and
// empty segments, and lets ".." remove the segment before it. A ".." with
// nothing before it is dropped silently: Normalize("../x") is "x". A
// leading "/" is kept (a leading "\" is not, as in Vectra); a drive path comes out as "C:/a/c". The result never
// ends with "/" unless it is "/", and is "" for "", "." and "..".
//
// Fix over Vectra: ".." never removes a leading drive letter, so
// Normalize("C:/..") is "C:" where Vectra gives "".
func Normalize(p string) string {
	segs := segments(p)
	driveRoot := isDrive(segs[0]) // out[0] is then always the drive
	var out []string
	for _, seg := range segs {
		switch {
		case seg == "" || seg == ".":
		case seg == "..":
			if len(out) > 1 || len(out) == 1 && !driveRoot {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, seg)
		}
	}
	joined := strings.Join(out, Sep)
	if p != "" && p[0] == '/' {
		return Sep + joined
	}
	return joined
}

// IsAbsolute reports whether p is rooted: it starts with "/" (POSIX) or
// with a drive letter, a colon and a separator ("C:\Users", "C:/Users").
func IsAbsolute(p string) bool {
	if p != "" && p[0] == '/' {
		return true
	}
	return hasDrivePrefix(p) && len(p) >= 3 && isSep(rune(p[2]))
}

// Relative returns the path from folder from to path to, on their
// normalized segments: one ".." per segment of from that to does not share,
// then the rest of to; "." when they are the same.
//
// Relative("a/b/c", "a/d/e") is "../../d/e"; Relative("a", "a/b/c") is "b/c".
func Relative(from, to string) string {
	fromSegs := nonEmpty(segments(Normalize(from)))
	toSegs := nonEmpty(segments(Normalize(to)))
	common := 0
	for common < len(fromSegs) && common < len(toSegs) && fromSegs[common] == toSegs[common] {
		common++
	}
	var rel []string
	for range fromSegs[common:] {
		rel = append(rel, "..")
	}
	rel = append(rel, toSegs[common:]...)
	if len(rel) == 0 {
		return "."
	}
	return strings.Join(rel, Sep)
}

func nonEmpty(segs []string) []string {
	out := segs[:0:0]
	for _, s := range segs {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// IsLocal reports whether p, a path read from a file or given by a caller,
// names a file inside the folder it is relative to: not empty, not
// absolute, no drive letter, no backslash, no NUL, and no "." or ".."
// segment and no empty segment. Vectra never writes anything but a plain
// file name ("<uuid>.json") where an index names a file, so this rejects
// nothing it wrote. It is stricter than [path/filepath.IsLocal]: a path
// that is not already clean is refused, not cleaned.
func IsLocal(p string) bool {
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
