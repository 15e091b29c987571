package storagetest

import (
	"io/fs"

	"github.com/foliovec/folio/core"
)

func folderCases() []rule {
	return []rule{
		{name: "CreateFolder creates missing parents", run: createFolderParents},
		{name: "CreateFolder of an existing folder is not an error and keeps its content", run: createFolderExisting},
		{name: "CreateFolder where a file exists fails with fs.ErrExist and keeps the file", run: createFolderOverFile},
		{name: "CreateFolder below a file fails", run: createFolderBelowFile},
		{name: "DeleteFolder removes the folder and everything below it", run: deleteFolderRecursive},
		{name: "DeleteFolder keeps siblings whose names share its prefix", run: deleteFolderSiblings},
		{name: "DeleteFolder of a missing folder is not an error", run: deleteFolderMissing},
		{name: "DeleteFolder of a file fails and keeps the file", run: deleteFolderOfFile},
		{name: "GetDetails describes a folder as FileTypeFolder, whatever its name", run: detailsOfFolder},
	}
}

func createFolderParents(e *env) {
	e.wantNoErr("CreateFolder", e.s.CreateFolder(e.ctx, e.p("a/b/c")))
	for _, rel := range []string{"a", "a/b", "a/b/c"} {
		e.wantDetails("after CreateFolder(a/b/c)", rel, e.folderDetails(rel))
	}
	e.wantNoErr("CreateFile in the new folder", e.s.CreateFile(e.ctx, e.p("a/b/c/f.txt"), []byte("x")))
}

func createFolderExisting(e *env) {
	if !e.mkdir("dir") || !e.write("dir/f.txt", []byte("kept")) {
		return
	}
	e.wantNoErr("CreateFolder again", e.s.CreateFolder(e.ctx, e.p("dir")))
	e.wantNoErr("CreateFolder of the root", e.s.CreateFolder(e.ctx, e.root))
	e.wantContent("after CreateFolder again", "dir/f.txt", []byte("kept"))
}

func createFolderOverFile(e *env) {
	if !e.write("file", []byte("kept")) {
		return
	}
	e.wantIs("CreateFolder over a file", e.s.CreateFolder(e.ctx, e.p("file")), fs.ErrExist)
	e.wantContent("after the refused CreateFolder", "file", []byte("kept"))
}

func createFolderBelowFile(e *env) {
	if !e.write("file", []byte("kept")) {
		return
	}
	e.wantErr("CreateFolder below a file", e.s.CreateFolder(e.ctx, e.p("file/sub/deeper")))
	e.wantContent("after the refused CreateFolder", "file", []byte("kept"))
}

func deleteFolderRecursive(e *env) {
	if !e.mkdir("tree/a/b") || !e.mkdir("tree/empty") ||
		!e.write("tree/top.txt", []byte("1")) || !e.write("tree/a/mid.txt", []byte("2")) ||
		!e.write("tree/a/b/leaf.txt", []byte("3")) {
		return
	}
	e.wantNoErr("DeleteFolder", e.s.DeleteFolder(e.ctx, e.p("tree")))
	for _, rel := range []string{"tree", "tree/top.txt", "tree/a", "tree/a/mid.txt", "tree/a/b", "tree/a/b/leaf.txt", "tree/empty"} {
		e.wantExists("after DeleteFolder(tree)", rel, false)
	}
	e.wantIs("CreateFile in the deleted folder",
		e.s.CreateFile(e.ctx, e.p("tree/top.txt"), []byte("x")), fs.ErrNotExist)
	e.wantNoErr("CreateFolder of the deleted path", e.s.CreateFolder(e.ctx, e.p("tree")))
	list, err := e.s.ListFiles(e.ctx, e.p("tree"), core.ListAll)
	if err != nil {
		e.errorf("ListFiles of the re-created folder: %w", err)
	} else if len(list) != 0 {
		e.errorf("ListFiles of the re-created folder = %+v, want nothing: the old children came back", list)
	}
}

func deleteFolderSiblings(e *env) {
	if !e.mkdir("a") || !e.mkdir("ab") || !e.mkdir("a.d") ||
		!e.write("a/in.txt", []byte("1")) || !e.write("ab/in.txt", []byte("2")) ||
		!e.write("a.txt", []byte("3")) || !e.write("a.d/in.txt", []byte("4")) {
		return
	}
	e.wantNoErr("DeleteFolder", e.s.DeleteFolder(e.ctx, e.p("a")))
	e.wantExists("after DeleteFolder(a)", "a", false)
	e.wantContent("after DeleteFolder(a)", "ab/in.txt", []byte("2"))
	e.wantContent("after DeleteFolder(a)", "a.txt", []byte("3"))
	e.wantContent("after DeleteFolder(a)", "a.d/in.txt", []byte("4"))
}

func deleteFolderMissing(e *env) {
	if !e.write("file", []byte("x")) {
		return
	}
	for _, rel := range []string{"missing", "missing/deeper", "file/below"} {
		e.wantNoErr("DeleteFolder("+e.p(rel)+")", e.s.DeleteFolder(e.ctx, e.p(rel)))
	}
	e.wantContent("after deleting missing folders", "file", []byte("x"))
}

func deleteFolderOfFile(e *env) {
	if !e.write("file.txt", []byte("kept")) {
		return
	}
	e.wantErr("DeleteFolder of a file", e.s.DeleteFolder(e.ctx, e.p("file.txt")))
	e.wantContent("after the refused DeleteFolder", "file.txt", []byte("kept"))
}

func detailsOfFolder(e *env) {
	for _, rel := range []string{"plain", "looks-like.md", "nested/deeper.txt"} {
		if !e.mkdir(rel) {
			return
		}
		e.wantDetails("a folder", rel, e.folderDetails(rel))
	}
}
