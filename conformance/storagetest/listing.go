package storagetest

import (
	"fmt"
	"io/fs"
	"slices"

	"github.com/foliovec/folio/core"
)

func listingCases() []rule {
	return []rule{
		{name: "ListFiles lists immediate children only, sorted by name, with their details", run: listChildren},
		{name: "ListFiles honours the files, folders and all filters", run: listFilters},
		{name: "ListFiles with the empty filter lists everything", run: listEmptyFilter},
		{name: "ListFiles with an unknown filter fails with core.ErrInvalidArgument", run: listUnknownFilter},
		{name: "ListFiles of an empty folder lists nothing", run: listEmptyFolder},
		{name: "ListFiles of a missing folder fails with fs.ErrNotExist", run: listMissing},
		{name: "ListFiles of a file fails", run: listFile},
		{name: "ListFiles entries name paths the storage accepts", run: listRoundTrip},
		{name: "ListFiles returns a new slice on every call", run: listFresh},
	}
}

// listTree makes dir with files and folders whose names sort differently by
// byte and by case, and some grandchildren that must not be listed.
func listTree(e *env, dir string) (files, folders []string, ok bool) {
	files = []string{"B.md", "a.json", "a.txt", "z"}
	folders = []string{"A", "b", "m.d"}
	for _, f := range folders {
		if !e.mkdir(dir+"/"+f) || !e.write(dir+"/"+f+"/grandchild.txt", []byte("g")) {
			return nil, nil, false
		}
	}
	if !e.mkdir(dir + "/b/deeper") {
		return nil, nil, false
	}
	for _, f := range files {
		if !e.write(dir+"/"+f, []byte(f)) {
			return nil, nil, false
		}
	}
	return files, folders, true
}

// wantList checks ListFiles(dir, filter) against want, in order.
func (e *env) wantList(what, dir string, filter core.ListFilesFilter, want []core.FileDetails) {
	got, err := e.s.ListFiles(e.ctx, e.p(dir), filter)
	if err != nil {
		e.errorf("%s: ListFiles(%q, %q): %w", what, e.p(dir), filter, err)
		return
	}
	if !slices.Equal(got, want) {
		e.errorf("%s: ListFiles(%q, %q) =\n\t%+v\nwant\n\t%+v", what, e.p(dir), filter, got, want)
	}
}

// sortedDetails returns the details of files and folders below dir, sorted
// by name.
func (e *env) sortedDetails(dir string, files, folders []string) []core.FileDetails {
	var all []core.FileDetails
	for _, f := range files {
		all = append(all, e.fileDetails(dir+"/"+f))
	}
	for _, f := range folders {
		all = append(all, e.folderDetails(dir+"/"+f))
	}
	slices.SortFunc(all, func(a, b core.FileDetails) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return all
}

func listChildren(e *env) {
	files, folders, ok := listTree(e, "dir")
	if !ok {
		return
	}
	e.wantList("children of dir", "dir", core.ListAll, e.sortedDetails("dir", files, folders))
	e.wantList("children of the root", "", core.ListAll, []core.FileDetails{e.folderDetails("dir")})
}

func listFilters(e *env) {
	files, folders, ok := listTree(e, "dir")
	if !ok {
		return
	}
	e.wantList("filter all", "dir", core.ListAll, e.sortedDetails("dir", files, folders))
	e.wantList("filter files", "dir", core.ListFilesOnly, e.sortedDetails("dir", files, nil))
	e.wantList("filter folders", "dir", core.ListFoldersOnly, e.sortedDetails("dir", nil, folders))
}

func listEmptyFilter(e *env) {
	files, folders, ok := listTree(e, "dir")
	if !ok {
		return
	}
	e.wantList("the empty filter", "dir", "", e.sortedDetails("dir", files, folders))
}

func listUnknownFilter(e *env) {
	if !e.mkdir("dir") || !e.write("dir/f.txt", []byte("x")) {
		return
	}
	for _, filter := range []core.ListFilesFilter{"file", "ALL", "everything"} {
		_, err := e.s.ListFiles(e.ctx, e.p("dir"), filter)
		e.wantIs(fmt.Sprintf("ListFiles with filter %q", filter), err, core.ErrInvalidArgument)
	}
}

func listEmptyFolder(e *env) {
	if !e.mkdir("empty") {
		return
	}
	for _, filter := range []core.ListFilesFilter{core.ListAll, core.ListFilesOnly, core.ListFoldersOnly} {
		e.wantList("an empty folder", "empty", filter, nil)
	}
	e.wantList("the empty root", "", core.ListFilesOnly, nil)
}

func listMissing(e *env) {
	for _, rel := range []string{"missing", "missing/deeper"} {
		_, err := e.s.ListFiles(e.ctx, e.p(rel), core.ListAll)
		e.wantIs("ListFiles("+e.p(rel)+")", err, fs.ErrNotExist)
	}
}

func listFile(e *env) {
	if !e.write("file.txt", []byte("x")) {
		return
	}
	_, err := e.s.ListFiles(e.ctx, e.p("file.txt"), core.ListAll)
	e.wantErr("ListFiles of a file", err)
}

func listRoundTrip(e *env) {
	if _, _, ok := listTree(e, "dir"); !ok {
		return
	}
	list, err := e.s.ListFiles(e.ctx, e.p("dir"), core.ListAll)
	if err != nil {
		e.errorf("ListFiles: %w", err)
		return
	}
	for _, entry := range list {
		got, err := e.s.GetDetails(e.ctx, entry.Path)
		if err != nil {
			e.errorf("GetDetails(%q) of a listed entry: %w", entry.Path, err)
			continue
		}
		if got != entry {
			e.errorf("GetDetails(%q) = %+v, but ListFiles said %+v", entry.Path, got, entry)
		}
		if entry.IsFolder {
			if _, err := e.s.ListFiles(e.ctx, entry.Path, core.ListAll); err != nil {
				e.errorf("ListFiles(%q) of a listed folder: %w", entry.Path, err)
			}
		} else if _, err := e.s.ReadFile(e.ctx, entry.Path); err != nil {
			e.errorf("ReadFile(%q) of a listed file: %w", entry.Path, err)
		}
	}
}

func listFresh(e *env) {
	if !e.mkdir("dir") || !e.write("dir/a.txt", []byte("a")) || !e.write("dir/b.txt", []byte("b")) {
		return
	}
	first, err := e.s.ListFiles(e.ctx, e.p("dir"), core.ListAll)
	if err != nil {
		e.errorf("ListFiles: %w", err)
		return
	}
	want := slices.Clone(first)
	for i := range first {
		first[i] = core.FileDetails{Name: "changed"}
	}
	e.wantList("after changing the slice an earlier call returned", "dir", core.ListAll, want)
}
