package storagetest

import (
	"io/fs"

	"github.com/foliovec/folio/core"
)

func pathCases() []rule {
	return []rule{
		{name: "equivalent spellings of a path name the same file or folder", run: equivalentPaths},
		{name: "GetDetails and ListFiles report clean paths", run: cleanPaths},
	}
}

// fileSpellings are spellings of "eq/sub/f.txt" below the root: doubled
// separators, "." segments, ".." after a segment (which need not exist).
func fileSpellings() []string {
	return []string{"eq//sub/f.txt", "eq/./sub/f.txt", "eq/x/../sub/f.txt", "./eq/sub//f.txt"}
}

// folderSpellings are spellings of "eq/sub", some with a trailing "/".
func folderSpellings() []string {
	return []string{"eq/sub/", "eq//sub", "eq/./sub", "eq/x/../sub", "./eq/sub/"}
}

func equivalentPaths(e *env) {
	if !e.mkdir("eq/sub") || !e.write("eq/sub/f.txt", []byte("same")) {
		return
	}
	for _, rel := range fileSpellings() {
		e.wantContent("ReadFile through "+rel, rel, []byte("same"))
		e.wantExists("PathExists through "+rel, rel, true)
		e.wantIs("CreateFile through "+rel, e.s.CreateFile(e.ctx, e.p(rel), []byte("other")), fs.ErrExist)
	}
	for _, rel := range folderSpellings() {
		e.wantExists("PathExists through "+rel, rel, true)
		e.wantIs("CreateFile through "+rel, e.s.CreateFile(e.ctx, e.p(rel), []byte("other")), fs.ErrExist)
		e.wantList("ListFiles through "+rel, rel, core.ListAll, []core.FileDetails{e.fileDetails("eq/sub/f.txt")})
	}
	e.wantNoErr("UpsertFile through eq/./sub//f.txt", e.s.UpsertFile(e.ctx, e.p("eq/./sub//f.txt"), []byte("new")))
	e.wantContent("after UpsertFile through another spelling", "eq/sub/f.txt", []byte("new"))
	e.wantNoErr("DeleteFile through eq//sub/f.txt", e.s.DeleteFile(e.ctx, e.p("eq//sub/f.txt")))
	e.wantExists("after DeleteFile through another spelling", "eq/sub/f.txt", false)
	e.wantNoErr("DeleteFolder through eq/sub/", e.s.DeleteFolder(e.ctx, e.p("eq/sub/")))
	e.wantExists("after DeleteFolder through another spelling", "eq/sub", false)
	e.wantNoErr("CreateFolder through eq//new/", e.s.CreateFolder(e.ctx, e.p("eq//new/")))
	e.wantDetails("after CreateFolder through another spelling", "eq/new", e.folderDetails("eq/new"))
}

func cleanPaths(e *env) {
	if !e.mkdir("eq/sub") || !e.write("eq/sub/f.txt", []byte("x")) {
		return
	}
	for _, rel := range fileSpellings() {
		e.wantDetails("GetDetails through "+rel, rel, e.fileDetails("eq/sub/f.txt"))
	}
	for _, rel := range folderSpellings() {
		e.wantDetails("GetDetails through "+rel, rel, e.folderDetails("eq/sub"))
	}
	e.wantList("ListFiles through eq/./", "eq/./", core.ListAll, []core.FileDetails{e.folderDetails("eq/sub")})
}
