package storagetest

import (
	"fmt"
	"io/fs"

	"github.com/foliovec/folio/core"
)

func fileCases() []rule {
	return []rule{
		{name: "CreateFile writes a new file that ReadFile returns byte for byte", run: createFileWrites},
		{name: "CreateFile and UpsertFile store empty content", run: emptyContent},
		{name: "CreateFile of an existing file fails with fs.ErrExist and keeps the old content", run: createFileExisting},
		{name: "CreateFile where a folder exists fails with fs.ErrExist and keeps the folder", run: createFileOverFolder},
		{name: "CreateFile in a missing folder fails with fs.ErrNotExist and creates nothing", run: createFileMissingParent},
		{name: "CreateFile below a file fails", run: createFileBelowFile},
		{name: "UpsertFile creates a missing file", run: upsertFileCreates},
		{name: "UpsertFile replaces the whole content, longer or shorter", run: upsertFileReplaces},
		{name: "UpsertFile in a missing folder fails with fs.ErrNotExist and creates nothing", run: upsertFileMissingParent},
		{name: "UpsertFile where a folder exists fails and keeps the folder", run: upsertFileOverFolder},
		{name: "writes keep their own copy of the caller's bytes", run: writesCopy},
		{name: "ReadFile returns a copy the caller may change", run: readCopies},
		{name: "ReadFile of a missing path fails with fs.ErrNotExist", run: readMissing},
		{name: "ReadFile of a folder fails", run: readFolder},
		{name: "DeleteFile removes the file and nothing else", run: deleteFile},
		{name: "DeleteFile of a missing path is not an error", run: deleteFileMissing},
		{name: "DeleteFile of a folder fails and keeps the folder", run: deleteFileOfFolder},
		{name: "PathExists reports files and folders, and false for missing paths", run: pathExists},
		{name: "GetDetails describes a file, with its type from its extension", run: detailsOfFile},
		{name: "GetDetails of a missing path fails with fs.ErrNotExist", run: detailsMissing},
	}
}

func createFileWrites(e *env) {
	for rel, content := range map[string][]byte{
		"text.txt":   []byte("hello, folio\n"),
		"binary.bin": pattern(70_000, 0),
		"no-ext":     {0, 0xff, 0xfe, '\n', 0},
	} {
		e.wantNoErr("CreateFile", e.s.CreateFile(e.ctx, e.p(rel), content))
		e.wantContent("after CreateFile", rel, content)
	}
}

func emptyContent(e *env) {
	e.wantNoErr("CreateFile with nil content", e.s.CreateFile(e.ctx, e.p("created.txt"), nil))
	e.wantNoErr("UpsertFile with empty content", e.s.UpsertFile(e.ctx, e.p("upserted.txt"), []byte{}))
	if !e.write("emptied.txt", []byte("not yet empty")) {
		return
	}
	e.wantNoErr("UpsertFile emptying a file", e.s.UpsertFile(e.ctx, e.p("emptied.txt"), nil))
	for _, rel := range []string{"created.txt", "upserted.txt", "emptied.txt"} {
		e.wantContent("empty file", rel, []byte{})
		e.wantExists("empty file", rel, true)
	}
}

func createFileExisting(e *env) {
	if !e.write("a.txt", []byte("old")) {
		return
	}
	e.wantIs("CreateFile over a file", e.s.CreateFile(e.ctx, e.p("a.txt"), []byte("new")), fs.ErrExist)
	e.wantContent("after the refused CreateFile", "a.txt", []byte("old"))
}

func createFileOverFolder(e *env) {
	if !e.mkdir("dir.txt") || !e.write("dir.txt/inner.txt", []byte("inner")) {
		return
	}
	e.wantIs("CreateFile over a folder", e.s.CreateFile(e.ctx, e.p("dir.txt"), []byte("new")), fs.ErrExist)
	e.wantDetails("after the refused CreateFile", "dir.txt", e.folderDetails("dir.txt"))
	e.wantContent("after the refused CreateFile", "dir.txt/inner.txt", []byte("inner"))
}

func createFileMissingParent(e *env) {
	e.wantIs("CreateFile in a missing folder", e.s.CreateFile(e.ctx, e.p("missing/a.txt"), []byte("x")), fs.ErrNotExist)
	e.wantExists("after the refused CreateFile", "missing", false)
	e.wantExists("after the refused CreateFile", "missing/a.txt", false)
}

func createFileBelowFile(e *env) {
	if !e.write("file.txt", []byte("a file")) {
		return
	}
	e.wantErr("CreateFile below a file", e.s.CreateFile(e.ctx, e.p("file.txt/a.txt"), []byte("x")))
	e.wantErr("UpsertFile below a file", e.s.UpsertFile(e.ctx, e.p("file.txt/a.txt"), []byte("x")))
	e.wantContent("after the refused writes", "file.txt", []byte("a file"))
}

func upsertFileCreates(e *env) {
	content := pattern(5000, 7)
	e.wantNoErr("UpsertFile of a new file", e.s.UpsertFile(e.ctx, e.p("new.json"), content))
	e.wantContent("after UpsertFile", "new.json", content)
}

func upsertFileReplaces(e *env) {
	for i, content := range [][]byte{
		[]byte("first"),
		pattern(100_000, 1), // longer
		[]byte("third, shorter"),
		pattern(3, 9),
	} {
		e.wantNoErr("UpsertFile", e.s.UpsertFile(e.ctx, e.p("f.json"), content))
		e.wantContent(fmt.Sprintf("after UpsertFile number %d", i+1), "f.json", content)
	}
}

func upsertFileMissingParent(e *env) {
	e.wantIs("UpsertFile in a missing folder", e.s.UpsertFile(e.ctx, e.p("missing/a.txt"), []byte("x")), fs.ErrNotExist)
	e.wantExists("after the refused UpsertFile", "missing", false)
}

func upsertFileOverFolder(e *env) {
	if !e.mkdir("dir") || !e.write("dir/inner.txt", []byte("inner")) || !e.mkdir("empty") {
		return
	}
	e.wantErr("UpsertFile over a folder", e.s.UpsertFile(e.ctx, e.p("dir"), []byte("new")))
	e.wantErr("UpsertFile over an empty folder", e.s.UpsertFile(e.ctx, e.p("empty"), []byte("new")))
	e.wantDetails("after the refused UpsertFile", "dir", e.folderDetails("dir"))
	e.wantDetails("after the refused UpsertFile", "empty", e.folderDetails("empty"))
	e.wantContent("after the refused UpsertFile", "dir/inner.txt", []byte("inner"))
}

func writesCopy(e *env) {
	created := []byte("created")
	e.wantNoErr("CreateFile", e.s.CreateFile(e.ctx, e.p("c.txt"), created))
	copy(created, "XXXXXXX")
	e.wantContent("after changing the bytes given to CreateFile", "c.txt", []byte("created"))

	upserted := []byte("upserted")
	e.wantNoErr("UpsertFile", e.s.UpsertFile(e.ctx, e.p("u.txt"), upserted))
	copy(upserted, "XXXXXXXX")
	e.wantContent("after changing the bytes given to UpsertFile", "u.txt", []byte("upserted"))

	// A slice with spare capacity: appending must not reach the stored copy.
	buf := make([]byte, 0, 64)
	buf = append(buf, "short"...)
	e.wantNoErr("UpsertFile", e.s.UpsertFile(e.ctx, e.p("cap.txt"), buf))
	_ = append(buf, "-appended"...)
	e.wantContent("after appending to the bytes given to UpsertFile", "cap.txt", []byte("short"))
}

func readCopies(e *env) {
	if !e.write("r.txt", []byte("stored")) {
		return
	}
	got, err := e.s.ReadFile(e.ctx, e.p("r.txt"))
	if err != nil {
		e.errorf("ReadFile: %w", err)
		return
	}
	copy(got, "XXXXXX")
	e.wantContent("after changing the bytes ReadFile returned", "r.txt", []byte("stored"))
}

func readMissing(e *env) {
	if !e.write("file.txt", []byte("x")) {
		return
	}
	for _, rel := range []string{"missing.txt", "missing/a.txt", "file.txt/below.txt"} {
		got, err := e.s.ReadFile(e.ctx, e.p(rel))
		e.wantIs("ReadFile("+e.p(rel)+")", err, fs.ErrNotExist)
		if got != nil {
			e.errorf("ReadFile(%q) returned %s with its error, want nil", e.p(rel), describe(got))
		}
	}
}

func readFolder(e *env) {
	if !e.mkdir("dir") {
		return
	}
	_, err := e.s.ReadFile(e.ctx, e.p("dir"))
	e.wantErr("ReadFile of a folder", err)
}

func deleteFile(e *env) {
	if !e.write("a.txt", []byte("a")) || !e.write("b.txt", []byte("b")) {
		return
	}
	e.wantNoErr("DeleteFile", e.s.DeleteFile(e.ctx, e.p("a.txt")))
	e.wantExists("after DeleteFile", "a.txt", false)
	_, err := e.s.ReadFile(e.ctx, e.p("a.txt"))
	e.wantIs("ReadFile after DeleteFile", err, fs.ErrNotExist)
	e.wantContent("the sibling after DeleteFile", "b.txt", []byte("b"))
	e.wantNoErr("CreateFile after DeleteFile", e.s.CreateFile(e.ctx, e.p("a.txt"), []byte("again")))
	e.wantContent("after CreateFile of the deleted path", "a.txt", []byte("again"))
}

func deleteFileMissing(e *env) {
	if !e.write("file.txt", []byte("x")) {
		return
	}
	for _, rel := range []string{"missing.txt", "missing/a.txt", "file.txt/below.txt"} {
		e.wantNoErr("DeleteFile("+e.p(rel)+")", e.s.DeleteFile(e.ctx, e.p(rel)))
	}
	e.wantContent("after deleting missing paths", "file.txt", []byte("x"))
}

func deleteFileOfFolder(e *env) {
	if !e.mkdir("dir") || !e.mkdir("empty") || !e.write("dir/inner.txt", []byte("inner")) {
		return
	}
	e.wantErr("DeleteFile of a folder", e.s.DeleteFile(e.ctx, e.p("dir")))
	e.wantErr("DeleteFile of an empty folder", e.s.DeleteFile(e.ctx, e.p("empty")))
	e.wantDetails("after the refused DeleteFile", "dir", e.folderDetails("dir"))
	e.wantDetails("after the refused DeleteFile", "empty", e.folderDetails("empty"))
	e.wantContent("after the refused DeleteFile", "dir/inner.txt", []byte("inner"))
}

func pathExists(e *env) {
	if !e.mkdir("dir") || !e.write("dir/file.txt", []byte("x")) {
		return
	}
	e.wantExists("the root", "", true)
	e.wantExists("a folder", "dir", true)
	e.wantExists("a file", "dir/file.txt", true)
	e.wantExists("a missing file", "dir/missing.txt", false)
	e.wantExists("a missing folder", "missing", false)
	e.wantExists("below a missing folder", "missing/file.txt", false)
	e.wantExists("below a file", "dir/file.txt/below", false)
}

func detailsOfFile(e *env) {
	for _, rel := range []string{"notes.md", "index.pb", "UPPER.TXT", "no-extension", ".env", "trailing."} {
		if !e.write(rel, []byte("x")) {
			return
		}
		e.wantDetails("a file", rel, e.fileDetails(rel))
	}
	if e.mkdir("nested/deeper") && e.write("nested/deeper/page.html", []byte("<p>")) {
		want := core.FileDetails{Name: "page.html", Path: e.p("nested/deeper/page.html"), FileType: "html"}
		e.wantDetails("a nested file", "nested/deeper/page.html", want)
	}
}

func detailsMissing(e *env) {
	if !e.write("file.txt", []byte("x")) {
		return
	}
	for _, rel := range []string{"missing.txt", "missing/a.txt", "file.txt/below.txt"} {
		_, err := e.s.GetDetails(e.ctx, e.p(rel))
		e.wantIs("GetDetails("+e.p(rel)+")", err, fs.ErrNotExist)
	}
}
