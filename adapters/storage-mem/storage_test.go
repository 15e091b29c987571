package storagemem_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"testing"

	storagemem "github.com/foliovec/folio/adapters/storage-mem"
	"github.com/foliovec/folio/conformance/storagetest"
	"github.com/foliovec/folio/core"
)

var caps = storagetest.Capabilities{AtomicReplace: true}

func TestConformance(t *testing.T) {
	roots := []struct{ name, root string }{
		{"relative top", ""},
		{"absolute folder", "/srv/data"},
		{"drive folder", "C:/data"},
	}
	for _, r := range roots {
		t.Run(r.name, func(t *testing.T) {
			storagetest.Run(t, harnessAt(r.root), caps)
		})
	}
}

// harnessAt returns harnesses of a new storage with root as their folder.
func harnessAt(root string) func(t testing.TB) storagetest.Harness {
	return func(t testing.TB) storagetest.Harness {
		s := storagemem.New()
		if err := s.CreateFolder(t.Context(), root); err != nil {
			t.Fatalf("CreateFolder(%q): %v", root, err)
		}
		return storagetest.Harness{Storage: s, Root: root}
	}
}

// The cases below are Vectra 0.15's src/storage/VirtualFileStorage.spec.ts
// that the conformance suite does not already state, as Folio keeps or
// fixes them, plus what is particular to memory.

func TestNormalisedPaths(t *testing.T) {
	ctx := t.Context()
	s := storagemem.New()
	mustNoErr(t, s.CreateFolder(ctx, "a/b"))
	mustNoErr(t, s.CreateFile(ctx, "a/b/f.txt", []byte("x")))
	tests := []struct {
		name, path string
	}{
		{"vectra: a normalised duplicate is refused", "a/./b/../b/f.txt"},
		{"backslashes are separators", `a\b\f.txt`},
		{"doubled separators collapse", "a//b//f.txt"},
		{"a leading dot segment is dropped", "./a/b/f.txt"},
		{"dot-dot above the top is dropped", "../a/b/f.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.CreateFile(ctx, tt.path, []byte("y")); !errors.Is(err, fs.ErrExist) {
				t.Errorf("CreateFile(%q) = %v, want fs.ErrExist", tt.path, err)
			}
			d, err := s.GetDetails(ctx, tt.path)
			if err != nil || d.Path != "a/b/f.txt" {
				t.Errorf("GetDetails(%q) = %+v, %v, want path a/b/f.txt", tt.path, d, err)
			}
		})
	}
}

func TestRoots(t *testing.T) {
	ctx := t.Context()
	s := storagemem.New()
	for _, root := range []string{"", "/", ".", `\`, "//"} {
		if ok, err := s.PathExists(ctx, root); !ok || err != nil {
			t.Errorf("PathExists(%q) = %v, %v, want true", root, ok, err)
		}
		if err := s.DeleteFolder(ctx, root); !errors.Is(err, core.ErrInvalidArgument) {
			t.Errorf("DeleteFolder(%q) = %v, want core.ErrInvalidArgument", root, err)
		}
	}
	mustNoErr(t, s.UpsertFile(ctx, "top.txt", []byte("relative")))
	mustNoErr(t, s.UpsertFile(ctx, "/top.txt", []byte("absolute")))
	rel, _ := s.ListFiles(ctx, "", core.ListAll)
	abs, _ := s.ListFiles(ctx, "/", core.ListAll)
	if len(rel) != 1 || rel[0].Path != "top.txt" || len(abs) != 1 || abs[0].Path != "/top.txt" {
		t.Errorf("the relative and absolute roots are not two folders: ListFiles(\"\") = %+v, ListFiles(\"/\") = %+v", rel, abs)
	}
	if d, err := s.GetDetails(ctx, "/"); err != nil || d != (core.FileDetails{Path: "/", IsFolder: true, FileType: core.FileTypeFolder}) {
		t.Errorf("GetDetails(/) = %+v, %v", d, err)
	}
}

func TestReadFileOfAnEmptyFileIsEmptyNotNil(t *testing.T) {
	ctx := t.Context()
	s := storagemem.New()
	mustNoErr(t, s.CreateFile(ctx, "empty", nil))
	got, err := s.ReadFile(ctx, "empty")
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("vectra: undefined content reads as an empty buffer: ReadFile = %#v, %v", got, err)
	}
}

func TestUpsertKeepsFileType(t *testing.T) {
	ctx := t.Context()
	s := storagemem.New()
	mustNoErr(t, s.CreateFile(ctx, "doc.md", []byte("# one")))
	mustNoErr(t, s.UpsertFile(ctx, "doc.md", []byte("# two")))
	d, err := s.GetDetails(ctx, "doc.md")
	if err != nil || d.FileType != "md" {
		t.Errorf("vectra: upsert replaces content keeping fileType: GetDetails = %+v, %v", d, err)
	}
}

func TestErrorsNameTheOperationAndPath(t *testing.T) {
	ctx := t.Context()
	s := storagemem.New()
	mustNoErr(t, s.CreateFolder(ctx, "dir"))
	_, readErr := s.ReadFile(ctx, "dir/missing.txt")
	tests := []struct {
		err  error
		want string
	}{
		{s.CreateFile(ctx, "dir", nil), `memory storage: create file "dir": file already exists`},
		{readErr, `memory storage: read file "dir/missing.txt": file does not exist`},
		{s.UpsertFile(ctx, "dir", nil), `memory storage: upsert file "dir": is a folder`},
		{s.DeleteFile(ctx, "dir"), `memory storage: delete file "dir": is a folder`},
	}
	for _, tt := range tests {
		if tt.err == nil || tt.err.Error() != tt.want {
			t.Errorf("error = %v, want %q", tt.err, tt.want)
		}
	}
}

func TestCancelledContextIsReturnedUnchanged(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := storagemem.New().UpsertFile(ctx, "a", nil); err != context.Canceled {
		t.Errorf("UpsertFile with a cancelled context = %v, want context.Canceled itself", err)
	}
}

func TestLargeFileRoundTrips(t *testing.T) {
	ctx := t.Context()
	s := storagemem.New()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	mustNoErr(t, s.UpsertFile(ctx, "big.bin", big))
	got, err := s.ReadFile(ctx, "big.bin")
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("ReadFile of 1 MiB: %d bytes, %v", len(got), err)
	}
}

func mustNoErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
