package pathutil_test

import (
	"strings"
	"testing"

	"github.com/foliovec/folio/core/internal/coretest"
	"github.com/foliovec/folio/core/pathutil"
)

// The cases marked "vectra:" are Vectra 0.15's src/utils/pathUtils.spec.ts,
// one for one; the others pin edges and the documented fixes.

func TestSep(t *testing.T) {
	if pathutil.Sep != "/" {
		t.Fatalf("vectra: sep is forward slash: got %q", pathutil.Sep)
	}
}

func TestJoin(t *testing.T) {
	tests := []struct {
		name  string
		parts []string
		want  string
	}{
		{"vectra: joins simple segments", []string{"a", "b", "c"}, "a/b/c"},
		{"vectra: strips trailing slashes from the first segment", []string{"a/", "b"}, "a/b"},
		{"vectra: strips leading and trailing slashes from middle segments", []string{"a", "/b/", "c"}, "a/b/c"},
		{"vectra: handles backslashes", []string{`a\`, `\b\`, "c"}, "a/b/c"},
		{"vectra: filters empty segments", []string{"a", "", "b"}, "a/b"},
		{"keeps a leading slash of the first part", []string{"/tmp/x", "a"}, "/tmp/x/a"},
		{"does not resolve dot-dot", []string{"idx", "../x"}, "idx/../x"},
		{"keeps separators inside a part", []string{"a", `b\c/d`}, `a/b\c/d`},
		{"no parts is empty", nil, ""},
		{"only empty parts is empty", []string{"", ""}, ""},
		{"empty first part is dropped", []string{"", "a"}, "a"},
		{"fix: a root first part keeps the root", []string{"/", "a"}, "/a"},
		{"fix: a root first part of several slashes keeps the root", []string{"//", "/a/", "b"}, "/a/b"},
		{"the root alone stays the root", []string{"/"}, "/"},
		{"a backslash-only first part is dropped, as in vectra", []string{`\`, "a"}, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pathutil.Join(tt.parts...); got != tt.want {
				t.Errorf("Join(%q) = %q, want %q", tt.parts, got, tt.want)
			}
		})
	}
}

func TestBasename(t *testing.T) {
	tests := []struct {
		name string
		path string
		ext  []string
		want string
	}{
		{"vectra: last segment with forward slashes", "a/b/file.txt", nil, "file.txt"},
		{"vectra: last segment with backslashes", `a\b\file.txt`, nil, "file.txt"},
		{"vectra: strips the extension when given", "a/b/file.txt", []string{".txt"}, "file"},
		{"vectra: keeps a mismatched extension", "a/b/file.txt", []string{".md"}, "file.txt"},
		{"vectra: path with no directory", "file.txt", nil, "file.txt"},
		{"trailing separator gives an empty name", "a/", nil, ""},
		{"empty path gives an empty name", "", nil, ""},
		{"an empty ext strips nothing", "file.txt", []string{""}, "file.txt"},
		{"only the first ext is used", "file.txt", []string{".md", ".txt"}, "file.txt"},
		{"an ext equal to the name leaves nothing, as in vectra", "a/.txt", []string{".txt"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pathutil.Basename(tt.path, tt.ext...); got != tt.want {
				t.Errorf("Basename(%q, %q) = %q, want %q", tt.path, tt.ext, got, tt.want)
			}
		})
	}
}

func TestDirname(t *testing.T) {
	coretest.Table(t, "Dirname", pathutil.Dirname, []coretest.Case[string, string]{
		{"vectra: directory with forward slashes", "a/b/file.txt", "a/b"},
		{"vectra: directory with backslashes", `a\b\file.txt`, "a/b"},
		{"vectra: a bare file name gives dot", "file.txt", "."},
		{"empty path gives dot", "", "."},
		{"absolute path keeps its root", "/a/b", "/a"},
		{"fix: a top-level absolute path has the root as parent", "/a", "/"},
		{"fix: the root's parent is the root", "/", "/"},
		{"a trailing separator only drops the empty segment, as in vectra", "a/b/", "a/b"},
		{"drive path", `C:\a\b`, "C:/a"},
	})
}

func TestExtname(t *testing.T) {
	coretest.Table(t, "Extname", pathutil.Extname, []coretest.Case[string, string]{
		{"vectra: returns the extension", "file.txt", ".txt"},
		{"vectra: returns the last extension of a double extension", "file.spec.ts", ".ts"},
		{"vectra: no extension gives empty", "Makefile", ""},
		{"vectra: a dotfile has no extension", ".gitignore", ""},
		{"looks at the last segment only", "a.b/file", ""},
		{"backslash separates segments", `a.b\file.md`, ".md"},
		{"a trailing dot is the extension", "file.", "."},
		{"keeps the case", "FILE.TXT", ".TXT"},
	})
}

func TestNormalize(t *testing.T) {
	coretest.Table(t, "Normalize", pathutil.Normalize, []coretest.Case[string, string]{
		{"vectra: resolves dot-dot segments", "a/b/../c", "a/c"},
		{"vectra: resolves dot segments", "a/./b", "a/b"},
		{"vectra: handles absolute paths", "/a/b/../c", "/a/c"},
		{"vectra: handles Windows drive paths", `C:\a\b\..\c`, "C:/a/c"},
		{"vectra: collapses repeated separators", "a//b///c", "a/b/c"},
		{"removes a trailing separator", "a/b/", "a/b"},
		{"the root stays the root", "/", "/"},
		{"empty stays empty", "", ""},
		{"dot is empty", ".", ""},
		{"dot-dot above the start is dropped", "../x", "x"},
		{"dot-dot above the root is dropped", "/../x", "/x"},
		{"dot-dot of everything is empty", "a/..", ""},
		{"a leading backslash is not a root, as in vectra", `\a\b`, "a/b"},
		{"fix: dot-dot never removes the drive", "C:/..", "C:"},
		{"fix: dot-dot never removes the drive, deeper", `C:\a\..\..\b`, "C:/b"},
		{"a drive-like segment later in the path is an ordinary segment", "x/C:/..", "x"},
	})
}

func TestIsAbsolute(t *testing.T) {
	coretest.Table(t, "IsAbsolute", pathutil.IsAbsolute, []coretest.Case[string, bool]{
		{"vectra: detects a Unix absolute path", "/usr/bin", true},
		{"vectra: detects a Windows absolute path", `C:\Users`, true},
		{"vectra: detects a Windows path with a forward slash", "C:/Users", true},
		{"vectra: a relative path is not absolute", "src/index.ts", false},
		{"a drive without a separator is not absolute", "C:Users", false},
		{"a bare drive is not absolute", "C:", false},
		{"empty is not absolute", "", false},
		{"a leading backslash is not absolute, as in vectra", `\Users`, false},
		{"the root is absolute", "/", true},
	})
}

func TestRelative(t *testing.T) {
	tests := []struct {
		name, from, to, want string
	}{
		{"vectra: between sibling directories", "a/b", "a/c", "../c"},
		{"vectra: going up several levels", "a/b/c", "a/d/e", "../../d/e"},
		{"vectra: the same path gives dot", "a/b", "a/b", "."},
		{"vectra: going deeper", "a", "a/b/c", "b/c"},
		{"vectra: completely different paths", "x/y", "a/b", "../../a/b"},
		{"works on normalized paths", "a/./b/", "a//c/../d", "../d"},
		{"from empty", "", "a/b", "a/b"},
		{"to empty", "a/b", "", "../.."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pathutil.Relative(tt.from, tt.to); got != tt.want {
				t.Errorf("Relative(%q, %q) = %q, want %q", tt.from, tt.to, got, tt.want)
			}
		})
	}
}

// FuzzNormalize checks Normalize's properties on any input: it does not
// panic, it is idempotent, and its result has no ".", ".." or empty segments
// and no "\".
func FuzzNormalize(f *testing.F) {
	for _, seed := range []string{
		"", ".", "..", "/", "//", `\`, "a/b/../c", "a/./b", "/a/b/../c", `C:\a\b\..\c`, "a//b///c",
		"C:/..", "C:", "c:x/..", "x/../C:/a", "/../..", "a/b/", `\\server\share\x`, "./.././a/",
		"é/ü/../ß", "a\x00b",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got := pathutil.Normalize(p)
		if again := pathutil.Normalize(got); again != got {
			t.Fatalf("not idempotent: Normalize(%q) = %q, Normalize(%q) = %q", p, got, got, again)
		}
		if strings.Contains(got, `\`) {
			t.Fatalf("Normalize(%q) = %q contains a backslash", p, got)
		}
		rest := strings.TrimPrefix(got, "/")
		if got == "/" || rest == "" {
			return
		}
		for _, seg := range strings.Split(rest, "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("Normalize(%q) = %q has segment %q", p, got, seg)
			}
		}
	})
}

func TestIsLocal(t *testing.T) {
	for p, want := range map[string]bool{
		"a.json": true, "a/b.json": true, "uuid-1.txt": true,
		"": false, "/a": false, "../a": false, "a/../b": false, "./a": false, "a//b": false,
		"a/": false, `a\b`: false, "c:x": false, "a\x00b": false, ".": false, "..": false,
	} {
		if got := pathutil.IsLocal(p); got != want {
			t.Errorf("IsLocal(%q) = %v, want %v", p, got, want)
		}
	}
}
