package storagefs_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

// linkedRoot makes base/root with symbolic links inside it pointing out
// (relative, absolute, to a file and to a folder) and in (to a sibling),
// and a secret file outside it.
func linkedRoot(t *testing.T) (base, root string) {
	t.Helper()
	base = t.TempDir()
	root = filepath.Join(base, "root")
	for _, dir := range []string{root, filepath.Join(base, "outside"), filepath.Join(root, "inside")} {
		if err := os.Mkdir(dir, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(base, "secret.txt"):             "secret",
		filepath.Join(base, "outside", "secret.txt"):  "secret",
		filepath.Join(root, "inside", "visible.txt"):  "visible",
		filepath.Join(root, "inside", "another.json"): "{}",
	}
	for path, content := range files {
		if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"out-file":     "../secret.txt",
		"out-dir":      "../outside",
		"abs-dir":      filepath.Join(base, "outside"),
		"in-file.txt":  "inside/visible.txt",
		"in-dir":       "inside",
		"dangling.txt": "inside/nothing.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skipf("symbolic links are not available here: %v", err)
		}
	}
	return base, root
}

func TestRootedRefusesPathsThatLeaveIt(t *testing.T) {
	base, root := linkedRoot(t)
	s := rooted(t, root)
	ctx := t.Context()
	paths := []struct{ name, path string }{
		{"dot-dot", "../secret.txt"},
		{"dot-dot after a folder", "inside/../../secret.txt"},
		{"absolute", filepath.ToSlash(filepath.Join(base, "secret.txt"))},
		{"absolute root", "/"},
		{"drive letter", "C:/secret.txt"},
		{"leading backslash", `\secret.txt`},
		{"relative link to a folder outside", "out-dir/secret.txt"},
		{"absolute link to a folder outside", "abs-dir/secret.txt"},
	}
	for _, tt := range paths {
		t.Run(tt.name, func(t *testing.T) {
			_, readErr := s.ReadFile(ctx, tt.path)
			_, existsErr := s.PathExists(ctx, tt.path)
			_, detailsErr := s.GetDetails(ctx, tt.path)
			for _, err := range []error{
				readErr, existsErr, detailsErr,
				s.UpsertFile(ctx, tt.path, []byte("overwritten")),
				s.CreateFile(ctx, tt.path, []byte("overwritten")),
				s.DeleteFile(ctx, tt.path),
				s.CreateFolder(ctx, tt.path+"/sub"),
				s.DeleteFolder(ctx, tt.path+"/sub"),
			} {
				if !errors.Is(err, storagefs.ErrOutsideRoot) || !errors.Is(err, core.ErrInvalidArgument) {
					t.Errorf("got %v, want an error wrapping storagefs.ErrOutsideRoot and core.ErrInvalidArgument", err)
				}
			}
		})
	}
	wantDisk(t, filepath.Join(base, "secret.txt"), "secret")
	wantDisk(t, filepath.Join(base, "outside", "secret.txt"), "secret")
	wantOnlyEntries(t, filepath.Join(base, "outside"), "secret.txt")
}

// A link to a file outside cannot be read through; writes replace the link
// itself, inside the root, as they replace any link.
func TestRootedLinkToAFileOutside(t *testing.T) {
	base, root := linkedRoot(t)
	s := rooted(t, root)
	ctx := t.Context()
	_, readErr := s.ReadFile(ctx, "out-file")
	_, existsErr := s.PathExists(ctx, "out-file")
	_, detailsErr := s.GetDetails(ctx, "out-file")
	for _, err := range []error{readErr, existsErr, detailsErr} {
		if !errors.Is(err, storagefs.ErrOutsideRoot) {
			t.Errorf("reading through the link = %v, want storagefs.ErrOutsideRoot", err)
		}
	}
	if err := s.CreateFile(ctx, "out-file", []byte("new")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("CreateFile over the link = %v, want fs.ErrExist", err)
	}
	if err := s.CreateFolder(ctx, "out-file/sub"); err == nil {
		t.Error("CreateFolder below the link succeeded")
	}
	if err := s.DeleteFolder(ctx, "out-file/sub"); !errors.Is(err, storagefs.ErrOutsideRoot) {
		t.Errorf("DeleteFolder below the link = %v, want storagefs.ErrOutsideRoot", err)
	}
	mustNoErr(t, s.UpsertFile(ctx, "out-file", []byte("replaced")))
	wantDisk(t, filepath.Join(root, "out-file"), "replaced")
	if info, err := os.Lstat(filepath.Join(root, "out-file")); err != nil || !info.Mode().IsRegular() {
		t.Errorf("after UpsertFile the link is not a regular file: %v, %v", info, err)
	}
	wantDisk(t, filepath.Join(base, "secret.txt"), "secret")
}

func TestRootedFollowsLinksThatStayInside(t *testing.T) {
	_, root := linkedRoot(t)
	s := rooted(t, root)
	ctx := t.Context()
	got, err := s.ReadFile(ctx, "in-file.txt")
	if err != nil || string(got) != "visible" {
		t.Errorf("ReadFile through a link inside = %q, %v", got, err)
	}
	got, err = s.ReadFile(ctx, "in-dir/visible.txt")
	if err != nil || string(got) != "visible" {
		t.Errorf("ReadFile through a folder link inside = %q, %v", got, err)
	}
	list, err := s.ListFiles(ctx, "", core.ListAll)
	if err != nil {
		t.Fatal(err)
	}
	want := []core.FileDetails{
		{Name: "in-dir", Path: "in-dir", IsFolder: true, FileType: core.FileTypeFolder},
		{Name: "in-file.txt", Path: "in-file.txt", FileType: "txt"},
		{Name: "inside", Path: "inside", IsFolder: true, FileType: core.FileTypeFolder},
	}
	if len(list) != len(want) {
		t.Fatalf("ListFiles of the root = %+v, want %+v (links out and dangling links are not listed)", list, want)
	}
	for i := range want {
		if list[i] != want[i] {
			t.Errorf("ListFiles[%d] = %+v, want %+v", i, list[i], want[i])
		}
	}
}

func TestRootedDeletesLinksNotTheirTargets(t *testing.T) {
	base, root := linkedRoot(t)
	s := rooted(t, root)
	ctx := t.Context()
	for _, p := range []string{"out-file", "dangling.txt", "in-file.txt"} {
		if err := s.DeleteFile(ctx, p); err != nil {
			t.Errorf("DeleteFile(%q) of a link: %v", p, err)
		}
		if _, err := os.Lstat(filepath.Join(root, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("link %q still there: %v", p, err)
		}
	}
	if err := s.DeleteFile(ctx, "in-dir"); err == nil {
		t.Error("DeleteFile of a link to a folder succeeded, want an error as for a folder")
	}
	if err := s.DeleteFolder(ctx, "in-dir"); err != nil {
		t.Errorf("DeleteFolder of a link to a folder: %v", err)
	}
	wantDisk(t, filepath.Join(base, "secret.txt"), "secret")
	wantDisk(t, filepath.Join(root, "inside", "visible.txt"), "visible")
}

func TestRootMustBeAnExistingFolder(t *testing.T) {
	dir := t.TempDir()
	if _, err := storagefs.New(&storagefs.Options{Root: filepath.Join(dir, "missing")}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a Root that is missing = %v, want fs.ErrNotExist", err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := storagefs.New(&storagefs.Options{Root: file}); err == nil {
		t.Error("a Root that is a file succeeded")
	}
}

func TestClose(t *testing.T) {
	s, err := storagefs.New(&storagefs.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	mustNoErr(t, s.Close())
	if err := s.UpsertFile(t.Context(), "a.txt", nil); err == nil {
		t.Error("UpsertFile after Close succeeded")
	}
	if err := localStorage().Close(); err != nil {
		t.Errorf("Close of an unrooted storage = %v", err)
	}
}
