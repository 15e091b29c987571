package storagetest

import (
	"fmt"
	"io/fs"

	"github.com/foliovec/folio/core"
)

// groupWriterCases hold for storages that implement core.GroupWriter; the
// others skip them.
func groupWriterCases() []rule {
	return []rule{
		{name: "WriteFiles writes every file, new or replaced, byte for byte", run: needs[core.GroupWriter](groupWritesAll)},
		{name: "WriteFiles of no files is not an error", run: needs[core.GroupWriter](groupWritesNone)},
		{name: "WriteFiles into a missing folder fails with fs.ErrNotExist", run: needs[core.GroupWriter](groupMissingParent)},
		{name: "WriteFiles where a folder exists fails and keeps the folder", run: needs[core.GroupWriter](groupOverFolder)},
		{name: "WriteFiles keeps its own copy of the caller's bytes", run: needs[core.GroupWriter](groupCopies)},
	}
}

// needsGroupWriter skips run for storages that do not implement
// core.GroupWriter, an optional interface rather than a claim.

func (e *env) group() core.GroupWriter { return e.opt.GroupWriter }

func groupWritesAll(e *env) {
	if !e.mkdir("sub") || !e.write("old.txt", []byte("old content, longer than the new")) {
		return
	}
	files := []core.FileWrite{{Path: e.p("old.txt"), Content: []byte("new")}}
	want := map[string][]byte{"old.txt": []byte("new")}
	for i := range 40 {
		rel := fmt.Sprintf("f%02d.json", i)
		if i%2 == 1 {
			rel = "sub/" + rel
		}
		content := pattern(100+i*97, byte(i))
		files = append(files, core.FileWrite{Path: e.p(rel), Content: content})
		want[rel] = content
	}
	e.wantNoErr("WriteFiles", e.group().WriteFiles(e.ctx, files))
	for rel, content := range want {
		e.wantContent("after WriteFiles", rel, content)
	}
	got, err := e.s.ListFiles(e.ctx, e.root, core.ListAll)
	e.wantNoErr("ListFiles after WriteFiles", err)
	if len(got) != 22 {
		e.errorf("ListFiles after WriteFiles: %d entries, want 21 files and a folder (no temporary file listed)", len(got))
	}
}

func groupWritesNone(e *env) {
	e.wantNoErr("WriteFiles(nil)", e.group().WriteFiles(e.ctx, nil))
}

func groupMissingParent(e *env) {
	err := e.group().WriteFiles(e.ctx, []core.FileWrite{{Path: e.p("missing/a.txt"), Content: []byte("x")}})
	e.wantIs("WriteFiles into a missing folder", err, fs.ErrNotExist)
}

func groupOverFolder(e *env) {
	if !e.mkdir("dir") {
		return
	}
	err := e.group().WriteFiles(e.ctx, []core.FileWrite{{Path: e.p("dir"), Content: []byte("x")}})
	e.wantErr("WriteFiles over a folder", err)
	e.wantDetails("after WriteFiles over a folder", "dir", e.folderDetails("dir"))
}

func groupCopies(e *env) {
	content := []byte("original")
	e.wantNoErr("WriteFiles", e.group().WriteFiles(e.ctx, []core.FileWrite{{Path: e.p("c.txt"), Content: content}}))
	copy(content, "CHANGED!")
	e.wantContent("after the caller changed its bytes", "c.txt", []byte("original"))
}
