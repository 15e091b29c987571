package core_test

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/internal/coretest"
)

// fileutilRecorder answers PathExists and DeleteFile as told and records
// the calls it gets. Methods the tests do not use panic.
type fileutilRecorder struct {
	core.FileStorage // nil: any other method panics
	exists           bool
	deleteErr        error
	calls            []string
}

func (s *fileutilRecorder) PathExists(_ context.Context, p string) (bool, error) {
	s.calls = append(s.calls, "PathExists "+p)
	return s.exists, nil
}

func (s *fileutilRecorder) CreateFolder(_ context.Context, p string) error {
	s.calls = append(s.calls, "CreateFolder "+p)
	return nil
}

func (s *fileutilRecorder) DeleteFile(_ context.Context, p string) error {
	s.calls = append(s.calls, "DeleteFile "+p)
	return s.deleteErr
}

// The cases marked "vectra:" are Vectra 0.15's
// src/storage/FileStorageUtilities.spec.ts, one for one.

func TestEnsureFolderExists(t *testing.T) {
	tests := []struct {
		name      string
		exists    bool
		wantCalls []string
	}{
		{"vectra: does not create the folder when it already exists", true,
			[]string{"PathExists /already/there"}},
		{"vectra: creates the folder when it does not exist", false,
			[]string{"PathExists /already/there", "CreateFolder /already/there"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &fileutilRecorder{exists: tt.exists}
			if err := core.EnsureFolderExists(t.Context(), s, "/already/there"); err != nil {
				t.Fatalf("EnsureFolderExists: %v", err)
			}
			if !slices.Equal(s.calls, tt.wantCalls) {
				t.Errorf("calls = %q, want %q", s.calls, tt.wantCalls)
			}
		})
	}
}

type fileutilFailingExists struct {
	core.FileStorage
	err error
}

func (s fileutilFailingExists) PathExists(context.Context, string) (bool, error) { return false, s.err }

func TestEnsureFolderExistsReturnsStorageErrorsUnchanged(t *testing.T) {
	for _, want := range []error{context.Canceled, fs.ErrPermission} {
		err := core.EnsureFolderExists(t.Context(), fileutilFailingExists{err: want}, "x")
		if err != want {
			t.Errorf("EnsureFolderExists with PathExists failing with %v = %v, want it unchanged", want, err)
		}
	}
}

func TestGetFileType(t *testing.T) {
	coretest.Table(t, "GetFileType", core.GetFileType, []coretest.Case[string, core.FileType]{
		{"vectra: known extension", "/any/path/file.txt", "txt"},
		{"vectra: known extension, case-insensitive", "/any/path/FILE.TXT", "txt"},
		{"vectra: unknown extension is unknown", "/any/path/file.unknown", ""},
		{"vectra: no extension is unknown", "/any/path/filename", ""},
		{"vectra: trailing dot is unknown", "/any/path/file.", ""},
		{"a dotfile is unknown even if its name is an extension", "/any/path/.env", ""},
		{"pb is not a known type, as in vectra", "index.pb", ""},
		{"the last extension counts", "archive.tar.gz", "gz"},
		{"backslash paths work", `C:\docs\Report.PDF`, "pdf"},
		{"a dot in a folder name does not count", "v1.2/readme", ""},
		{"every list feeds FileExt: code", "main.go", "go"},
		{"every list feeds FileExt: model", "mesh.glb", "glb"},
	})
}

func TestGetFileTypeFromContentType(t *testing.T) {
	coretest.Table(t, "GetFileTypeFromContentType", core.GetFileTypeFromContentType, []coretest.Case[string, core.FileType]{
		{"vectra: mapped type when directly mapped", "text/plain", "txt"},
		{"vectra: falls back to the subtype when not mapped", "application/png", "png"},
		{"vectra: a plus suffix uses the part before it (here unknown)", "application/ld+json", ""},
		{"vectra: no slash is unknown", "invalid", ""},
		{"a plus suffix uses the part before it (known)", "application/pdf+zip", "pdf"},
		{"the map wins over the subtype", "image/jpeg", "jpg"},
		{"the map wins for a plus type", "image/svg+xml", "svg"},
		{"parameters are not stripped, as in vectra", "text/html; charset=utf-8", ""},
		{"two slashes is unknown", "a/b/png", ""},
		{"subtypes are case-sensitive, as in vectra", "application/PNG", ""},
		{"empty is unknown", "", ""},
		{"empty subtype is unknown", "text/", ""},
	})
}

func TestTryDeleteFile(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name      string
		deleteErr error
	}{
		{"vectra: returns nil on a successful delete", nil},
		{"vectra: returns the error on a failed delete", boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &fileutilRecorder{deleteErr: tt.deleteErr}
			err := core.TryDeleteFile(t.Context(), s, "/tmp/file.bin")
			if err != tt.deleteErr {
				t.Errorf("TryDeleteFile = %v, want %v", err, tt.deleteErr)
			}
			if want := []string{"DeleteFile /tmp/file.bin"}; !slices.Equal(s.calls, want) {
				t.Errorf("calls = %q, want %q", s.calls, want)
			}
		})
	}
}

func TestLooksBinary(t *testing.T) {
	for _, tc := range []struct {
		path string
		head string
		want bool
	}{
		{"notes.md", "# Title\n", false},
		{"image.PNG", "", true},
		{"archive.tar.gz", "text", true},
		{"data.sqlite", "SQLite format 3", true},
		{"Makefile", "all:\n", false},
		{"blob", "ELF\x00\x01", true},
		{"utf16.txt", "\xff\xfeh\x00i\x00", true},
		{"late-nul.txt", strings.Repeat("a", 8<<10) + "\x00", false},
		{".png", "", false}, // a dotfile has no extension
		{"empty.txt", "", false},
	} {
		if got := core.LooksBinary(tc.path, []byte(tc.head)); got != tc.want {
			t.Errorf("LooksBinary(%q, %.20q) = %v, want %v", tc.path, tc.head, got, tc.want)
		}
	}
}
