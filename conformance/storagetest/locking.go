package storagetest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foliovec/folio/core"
)

// lockWait is how long a case waits to see that LockFolder is blocked.
const lockWait = 50 * time.Millisecond

// folderLockerCases hold for storages that implement core.FolderLocker;
// the others skip them.
func folderLockerCases() []rule {
	return []rule{
		{name: "LockFolder excludes a second LockFolder of the folder until unlock", run: needs[core.FolderLocker](lockExcludes)},
		{name: "LockFolder lets one holder at a time into the folder among many", run: needs[core.FolderLocker](lockMutualExclusion)},
		{name: "LockFolder of one folder leaves another folder free", run: needs[core.FolderLocker](lockPerFolder)},
		{name: "LockFolder of a missing folder fails with fs.ErrNotExist", run: needs[core.FolderLocker](lockMissing)},
		{name: "LockFolder with an ended context returns the context's error", run: needs[core.FolderLocker](lockCancelled)},
	}
}

// fileVersionerCases hold for storages that implement core.FileVersioner.
func fileVersionerCases() []rule {
	return []rule{
		{name: "FileVersion is stable while the file is unchanged", run: needs[core.FileVersioner](versionStable)},
		{name: "FileVersion changes with every write of the file, even of the same bytes", run: needs[core.FileVersioner](versionChanges)},
		{name: "FileVersion of a missing file fails with fs.ErrNotExist", run: needs[core.FileVersioner](versionMissing)},
	}
}

func (e *env) locker() core.FolderLocker     { return e.opt.FolderLocker }
func (e *env) versioner() core.FileVersioner { return e.opt.FileVersioner }

// lockGrace is how long after its context ends LockFolder may take to
// return before a case gives up on it.
const lockGrace = time.Second

// lock takes the lock of folder rel with a context that ends after d. A
// LockFolder that ignores its context is given up on lockGrace later (the
// lock, if it comes, is then released at once) and is an error.
func (e *env) lock(rel string, d time.Duration) (func(), error) {
	ctx, cancel := context.WithTimeout(e.ctx, d)
	defer cancel()
	type result struct {
		unlock func()
		err    error
	}
	got := make(chan result, 1)
	go func() {
		u, err := e.locker().LockFolder(ctx, e.p(rel))
		got <- result{u, err}
	}()
	select {
	case r := <-got:
		return r.unlock, r.err
	case <-time.After(d + lockGrace):
		go func() {
			if r := <-got; r.err == nil {
				r.unlock()
			}
		}()
		return nil, fmt.Errorf("LockFolder still waiting %v after its context ended", lockGrace)
	}
}

func lockExcludes(e *env) {
	if !e.mkdir("ix") {
		return
	}
	unlock, err := e.lock("ix", 5*time.Second)
	if err != nil {
		e.errorf("LockFolder: %w", err)
		return
	}
	second, err := e.lock("ix", lockWait)
	if err == nil {
		second()
		unlock()
		e.errorf("a second LockFolder took the lock while the first held it")
		return
	}
	e.wantIs("a second LockFolder while the first holds the lock", err, context.DeadlineExceeded)
	got := make(chan error, 1)
	go func() {
		u, err := e.lock("ix", 5*time.Second)
		if err == nil {
			u()
		}
		got <- err
	}()
	time.Sleep(lockWait)
	unlock()
	e.wantNoErr("LockFolder waiting for an unlock", <-got)
}

func lockMutualExclusion(e *env) {
	if !e.mkdir("ix") {
		return
	}
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		e.goSafe(&wg, func() {
			for range 20 {
				unlock, err := e.lock("ix", 10*time.Second)
				if err != nil {
					e.errorf("LockFolder: %w", err)
					return
				}
				n := inside.Add(1)
				if n > most.Load() {
					most.Store(n)
				}
				time.Sleep(50 * time.Microsecond)
				inside.Add(-1)
				unlock()
			}
		})
	}
	wg.Wait()
	if m := most.Load(); m != 1 {
		e.errorf("%d holders were inside the lock at once, want 1", m)
	}
}

func lockPerFolder(e *env) {
	if !e.mkdir("a") || !e.mkdir("b") {
		return
	}
	ua, err := e.lock("a", 5*time.Second)
	if err != nil {
		e.errorf("LockFolder(a): %w", err)
		return
	}
	defer ua()
	ub, err := e.lock("b", time.Second)
	if err != nil {
		e.errorf("LockFolder(b) while a is locked: %w", err)
		return
	}
	ub()
}

func lockMissing(e *env) {
	u, err := e.lock("missing", time.Second)
	if err == nil {
		u()
	}
	e.wantIs("LockFolder of a missing folder", err, fs.ErrNotExist)
}

func lockCancelled(e *env) {
	if !e.mkdir("ix") {
		return
	}
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	u, err := e.locker().LockFolder(ctx, e.p("ix"))
	if err == nil {
		u()
	}
	if !errors.Is(err, context.Canceled) {
		e.errorf("LockFolder with a cancelled context: got %v, want context.Canceled", err)
	}
	// The cancelled call left the lock free.
	u, err = e.lock("ix", time.Second)
	if err != nil {
		e.errorf("LockFolder after a cancelled LockFolder: %w", err)
		return
	}
	u()
}

func versionStable(e *env) {
	if !e.write("f.json", []byte("one")) {
		return
	}
	v1, err1 := e.versioner().FileVersion(e.ctx, e.p("f.json"))
	_, _ = e.s.ReadFile(e.ctx, e.p("f.json"))
	v2, err2 := e.versioner().FileVersion(e.ctx, e.p("f.json"))
	e.wantNoErr("FileVersion", errors.Join(err1, err2))
	if v1 != v2 {
		e.errorf("FileVersion of an unchanged file: %q then %q", v1, v2)
	}
}

func versionChanges(e *env) {
	if !e.write("f.json", []byte("one")) {
		return
	}
	seen := map[string]string{}
	version := func(what string) {
		v, err := e.versioner().FileVersion(e.ctx, e.p("f.json"))
		if err != nil {
			e.errorf("FileVersion %s: %w", what, err)
			return
		}
		if before, dup := seen[v]; dup {
			e.errorf("FileVersion %s is %q, as it was %s", what, v, before)
		}
		seen[v] = what
	}
	version("after the first write")
	e.write("f.json", []byte("two"))
	version("after an upsert of other bytes")
	e.write("f.json", []byte("two"))
	version("after an upsert of the same bytes")
	e.wantNoErr("DeleteFile", e.s.DeleteFile(e.ctx, e.p("f.json")))
	e.wantNoErr("CreateFile", e.s.CreateFile(e.ctx, e.p("f.json"), []byte("two")))
	version("after a delete and a create of the same bytes")
}

func versionMissing(e *env) {
	_, err := e.versioner().FileVersion(e.ctx, e.p("missing.json"))
	e.wantIs("FileVersion of a missing file", err, fs.ErrNotExist)
}
