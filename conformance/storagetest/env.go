package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"sync"
	"testing"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// env is what a case works with: the test, the storage, its root and what
// the storage claims. errorf may be called from several goroutines.
type env struct {
	t      testing.TB
	ctx    context.Context
	s      core.FileStorage
	root   string
	reopen func() core.FileStorage
	caps   Capabilities
	opt    Optional // what s implements of core's optional capabilities
}

// errorf reports a violation; format may use %w.
func (e *env) errorf(format string, args ...any) {
	e.t.Error(fmt.Errorf(format, args...).Error())
}

// failed reports whether the case has reported a violation.
func (e *env) failed() bool { return e.t.Failed() }

// goSafe runs fn in a goroutine counted by wg; a panic in it is recorded
// as a violation instead of ending the process.
func (e *env) goSafe(wg *sync.WaitGroup, fn func()) {
	wg.Go(func() {
		defer func() {
			if p := recover(); p != nil {
				e.errorf("panic: %v\n%s", p, debug.Stack())
			}
		}()
		fn()
	})
}

// p returns the storage path of rel, a "/"-separated path below the root.
func (e *env) p(rel string) string { return pathutil.Join(e.root, rel) }

// mkdir creates the folder rel (and its parents); false if it could not.
func (e *env) mkdir(rel string) bool {
	if err := e.s.CreateFolder(e.ctx, e.p(rel)); err != nil {
		e.errorf("setup: CreateFolder(%q): %w", e.p(rel), err)
		return false
	}
	return true
}

// write creates or replaces the file rel; false if it could not.
func (e *env) write(rel string, content []byte) bool {
	if err := e.s.UpsertFile(e.ctx, e.p(rel), content); err != nil {
		e.errorf("setup: UpsertFile(%q): %w", e.p(rel), err)
		return false
	}
	return true
}

// wantContent checks that the file rel reads back as want.
func (e *env) wantContent(what, rel string, want []byte) {
	got, err := e.s.ReadFile(e.ctx, e.p(rel))
	if err != nil {
		e.errorf("%s: ReadFile(%q): %w", what, e.p(rel), err)
		return
	}
	if !bytes.Equal(got, want) {
		e.errorf("%s: ReadFile(%q) = %s, want %s", what, e.p(rel), describe(got), describe(want))
	}
}

// wantExists checks PathExists for rel.
func (e *env) wantExists(what, rel string, want bool) {
	got, err := e.s.PathExists(e.ctx, e.p(rel))
	if err != nil {
		e.errorf("%s: PathExists(%q): %w", what, e.p(rel), err)
		return
	}
	if got != want {
		e.errorf("%s: PathExists(%q) = %v, want %v", what, e.p(rel), got, want)
	}
}

// wantIs checks that err wraps target.
func (e *env) wantIs(what string, err, target error) {
	if !errors.Is(err, target) {
		e.errorf("%s: got error %v, want one wrapping %v", what, err, target)
	}
}

// wantErr checks that err is not nil.
func (e *env) wantErr(what string, err error) {
	if err == nil {
		e.errorf("%s: got no error, want one", what)
	}
}

// wantNoErr checks that err is nil.
func (e *env) wantNoErr(what string, err error) {
	if err != nil {
		e.errorf("%s: %w", what, err)
	}
}

// wantDetails checks GetDetails(rel) against want.
func (e *env) wantDetails(what, rel string, want core.FileDetails) {
	got, err := e.s.GetDetails(e.ctx, e.p(rel))
	if err != nil {
		e.errorf("%s: GetDetails(%q): %w", what, e.p(rel), err)
		return
	}
	if got != want {
		e.errorf("%s: GetDetails(%q) = %+v, want %+v", what, e.p(rel), got, want)
	}
}

// fileDetails is what GetDetails and ListFiles must say of the file rel.
func (e *env) fileDetails(rel string) core.FileDetails {
	return core.FileDetails{Name: pathutil.Basename(rel), Path: e.p(rel), FileType: core.GetFileType(rel)}
}

// folderDetails is what they must say of the folder rel.
func (e *env) folderDetails(rel string) core.FileDetails {
	return core.FileDetails{Name: pathutil.Basename(rel), Path: e.p(rel), IsFolder: true, FileType: core.FileTypeFolder}
}

// describe shows short contents whole and long ones by length and first bytes.
func describe(b []byte) string {
	if len(b) <= 64 {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%d bytes starting %q", len(b), b[:32])
}

// pattern returns n bytes that cover every byte value, starting at seed.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i) + byte(i>>8)
	}
	return b
}

// wantNames checks that the folder rel lists exactly names (files and
// folders): no temporary file left behind by what.
func (e *env) wantNames(what, rel string, names []string) {
	list, err := e.s.ListFiles(e.ctx, e.p(rel), core.ListAll)
	if err != nil {
		e.errorf("after %s: ListFiles(%q): %w", what, e.p(rel), err)
		return
	}
	got := make([]string, len(list))
	for i, d := range list {
		got[i] = d.Name
	}
	if !slices.Equal(got, names) {
		e.errorf("after %s, %q lists %v, want %v", what, e.p(rel), got, names)
	}
}

// needs runs run only where the storage implements T, an optional
// capability (as OptionalOf reports it), and skips the case elsewhere.
func needs[T any](run func(e *env)) func(e *env) {
	return func(e *env) {
		name := reflect.TypeFor[T]().String()
		if !slices.Contains(e.opt.Names(), name) {
			e.t.Skipf("the storage does not implement %s", name)
		}
		run(e)
	}
}
