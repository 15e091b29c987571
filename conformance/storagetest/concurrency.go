package storagetest

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"

	"github.com/foliovec/folio/core"
)

func concurrencyCases() []rule {
	return []rule{
		{name: "concurrent writers and readers of distinct files do not interfere", run: concurrentDistinct},
		{name: "concurrent UpsertFile of one path leaves one whole version", run: concurrentUpserts},
		{name: "concurrent CreateFile of one path lets exactly one succeed, the others fail with fs.ErrExist", run: concurrentCreates},
		{name: "concurrent CreateFolder of overlapping trees succeeds everywhere", run: concurrentFolders},
	}
}

const workers = 8

func concurrentDistinct(e *env) {
	const files = 8
	content := func(w, i, round int) []byte { return fmt.Appendf(nil, "worker %d file %d round %d", w, i, round) }
	var wg sync.WaitGroup
	for w := range workers {
		e.goSafe(&wg, func() {
			dir := fmt.Sprintf("w%d", w)
			if !e.mkdir(dir) {
				return
			}
			for i := range files {
				rel := fmt.Sprintf("%s/f%d.txt", dir, i)
				e.wantNoErr("CreateFile "+rel, e.s.CreateFile(e.ctx, e.p(rel), content(w, i, 0)))
				e.wantContent("after CreateFile", rel, content(w, i, 0))
				e.wantNoErr("UpsertFile "+rel, e.s.UpsertFile(e.ctx, e.p(rel), content(w, i, 1)))
				e.wantContent("after UpsertFile", rel, content(w, i, 1))
				list, err := e.s.ListFiles(e.ctx, e.p(dir), core.ListFilesOnly)
				if err != nil {
					e.errorf("ListFiles(%q): %w", e.p(dir), err)
				} else if len(list) != i+1 {
					e.errorf("ListFiles(%q) has %d entries after writing %d files", e.p(dir), len(list), i+1)
				}
			}
			for i := 0; i < files; i += 2 {
				e.wantNoErr("DeleteFile", e.s.DeleteFile(e.ctx, e.p(fmt.Sprintf("%s/f%d.txt", dir, i))))
			}
		})
	}
	wg.Wait()
	if e.failed() {
		return
	}
	for w := range workers {
		for i := range files {
			rel := fmt.Sprintf("w%d/f%d.txt", w, i)
			if i%2 == 0 {
				e.wantExists("after the workers", rel, false)
			} else {
				e.wantContent("after the workers", rel, content(w, i, 1))
			}
		}
	}
	list, err := e.s.ListFiles(e.ctx, e.root, core.ListFoldersOnly)
	if err != nil {
		e.errorf("ListFiles of the root: %w", err)
	} else if len(list) != workers {
		e.errorf("ListFiles of the root lists %d folders, want %d", len(list), workers)
	}
}

func concurrentUpserts(e *env) {
	const rounds = 8
	version := func(w, i int) []byte { return pattern(1000+100*w+i, byte(w*rounds+i)) }
	var all [][]byte
	for w := range workers {
		for i := range rounds {
			all = append(all, version(w, i))
		}
	}
	var wg sync.WaitGroup
	for w := range workers {
		e.goSafe(&wg, func() {
			for i := range rounds {
				e.wantNoErr("UpsertFile", e.s.UpsertFile(e.ctx, e.p("shared.bin"), version(w, i)))
			}
		})
	}
	wg.Wait()
	got, err := e.s.ReadFile(e.ctx, e.p("shared.bin"))
	if err != nil {
		e.errorf("ReadFile after the upserts: %w", err)
		return
	}
	if !slices.ContainsFunc(all, func(v []byte) bool { return string(v) == string(got) }) {
		e.errorf("ReadFile after the upserts = %s, which no UpsertFile wrote", describe(got))
	}
}

func concurrentCreates(e *env) {
	const rounds = 5
	for round := range rounds {
		rel := fmt.Sprintf("race%d.txt", round)
		start := make(chan struct{})
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for w := range workers {
			e.goSafe(&wg, func() {
				<-start
				errs[w] = e.s.CreateFile(e.ctx, e.p(rel), fmt.Appendf(nil, "written by %d", w))
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for w, err := range errs {
			switch {
			case err == nil && winner >= 0:
				e.errorf("%s: CreateFile succeeded for writers %d and %d", rel, winner, w)
			case err == nil:
				winner = w
			case !errors.Is(err, fs.ErrExist):
				e.errorf("%s: CreateFile of writer %d failed with %v, want an error wrapping fs.ErrExist", rel, w, err)
			}
		}
		if winner < 0 {
			e.errorf("%s: no CreateFile succeeded", rel)
			continue
		}
		e.wantContent("after the racing CreateFile calls", rel, fmt.Appendf(nil, "written by %d", winner))
	}
}

func concurrentFolders(e *env) {
	var wg sync.WaitGroup
	for w := range workers {
		e.goSafe(&wg, func() {
			rel := fmt.Sprintf("tree/a/b/%d", w%3)
			e.wantNoErr("CreateFolder "+rel, e.s.CreateFolder(e.ctx, e.p(rel)))
			e.wantNoErr("CreateFile in "+rel, e.s.UpsertFile(e.ctx, e.p(fmt.Sprintf("%s/f%d.txt", rel, w)), []byte("x")))
		})
	}
	wg.Wait()
	e.wantList("after the racing CreateFolder calls", "tree/a/b", core.ListAll,
		[]core.FileDetails{e.folderDetails("tree/a/b/0"), e.folderDetails("tree/a/b/1"), e.folderDetails("tree/a/b/2")})
}
