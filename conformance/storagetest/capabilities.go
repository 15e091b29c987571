package storagetest

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

func capabilityCases() []rule {
	return []rule{
		{name: "readers during UpsertFile see the whole old or new content", claimed: func(c Capabilities) bool { return c.AtomicReplace }, run: atomicReplace},
		{name: "a reopened storage sees the files and folders written before", claimed: func(c Capabilities) bool { return c.Persistent }, run: persistent},
		{name: "paths that leave the root fail with core.ErrInvalidArgument", claimed: func(c Capabilities) bool { return c.Confined }, run: confined},
	}
}

// atomicVersion is version k of the file the atomic case rewrites: every
// byte is k and the length depends on k, so a mix of two versions, a prefix
// or an empty read is recognised.
func atomicVersion(k byte) []byte {
	return slices.Repeat([]byte{k}, 20_000+int(k)*3_001)
}

func validAtomicVersion(b []byte) bool {
	if len(b) == 0 || len(b) != len(atomicVersion(b[0])) {
		return false
	}
	for _, c := range b {
		if c != b[0] {
			return false
		}
	}
	return true
}

func atomicReplace(e *env) {
	const writers, readers, rounds = 2, 4, 12
	if !e.write("atomic.bin", atomicVersion(0)) {
		return
	}
	var done atomic.Bool
	var reads atomic.Int64
	var rwg sync.WaitGroup
	for range readers {
		e.goSafe(&rwg, func() {
			for !done.Load() {
				runtime.Gosched() // let writers run where goroutines are not preempted (js/wasm)
				got, err := e.s.ReadFile(e.ctx, e.p("atomic.bin"))
				reads.Add(1)
				if err != nil {
					e.errorf("ReadFile during UpsertFile: %w", err)
					return
				}
				if !validAtomicVersion(got) {
					e.errorf("ReadFile during UpsertFile = %s, which is no whole version", describe(got))
					return
				}
			}
		})
	}
	var wwg sync.WaitGroup
	for w := range writers {
		e.goSafe(&wwg, func() {
			for i := range rounds {
				k := byte(1 + w*rounds + i)
				e.wantNoErr("UpsertFile", e.s.UpsertFile(e.ctx, e.p("atomic.bin"), atomicVersion(k)))
			}
		})
	}
	wwg.Wait()
	done.Store(true)
	rwg.Wait()
	got, err := e.s.ReadFile(e.ctx, e.p("atomic.bin"))
	if err != nil {
		e.errorf("ReadFile after the upserts: %w", err)
	} else if !validAtomicVersion(got) || got[0] == 0 {
		e.errorf("ReadFile after the upserts = %s, want one of the versions written", describe(got))
	}
}

func persistent(e *env) {
	if !e.mkdir("dir/sub") || !e.write("dir/a.txt", []byte("a")) || !e.write("dir/sub/b.bin", pattern(3000, 3)) {
		return
	}
	if e.reopen == nil {
		e.errorf("the storage claims Persistent but the harness has no Reopen")
		return
	}
	reopened := e.reopen()
	if reopened == nil {
		e.errorf("Reopen returned nil")
		return
	}
	e.s = reopened
	e.wantContent("after Reopen", "dir/a.txt", []byte("a"))
	e.wantContent("after Reopen", "dir/sub/b.bin", pattern(3000, 3))
	e.wantList("after Reopen", "dir", core.ListAll, []core.FileDetails{e.fileDetails("dir/a.txt"), e.folderDetails("dir/sub")})
}

func confined(e *env) {
	depth := 0
	if rest := strings.TrimPrefix(pathutil.Normalize(e.root), "/"); rest != "" {
		depth = len(strings.Split(rest, "/"))
	}
	up := strings.Repeat("../", depth+1)
	escapes := []string{
		e.p(up + "folio-storagetest-escape"),
		e.p("dir/" + up + "../folio-storagetest-escape"),
		"/folio-storagetest-escape",
	}
	if !e.mkdir("dir") {
		return
	}
	for _, p := range escapes {
		isAbs := strings.HasPrefix(p, "/")
		check := func(call string, err error) {
			e.wantIs(call, err, core.ErrInvalidArgument)
		}
		_, err := e.s.ReadFile(e.ctx, p)
		check(fmt.Sprintf("ReadFile(%q)", p), err)
		_, err = e.s.PathExists(e.ctx, p)
		check(fmt.Sprintf("PathExists(%q)", p), err)
		_, err = e.s.GetDetails(e.ctx, p)
		check(fmt.Sprintf("GetDetails(%q)", p), err)
		_, err = e.s.ListFiles(e.ctx, p, core.ListAll)
		check(fmt.Sprintf("ListFiles(%q)", p), err)
		check(fmt.Sprintf("DeleteFile(%q)", p+"/missing.txt"), e.s.DeleteFile(e.ctx, p+"/missing.txt"))
		check(fmt.Sprintf("DeleteFolder(%q)", p+"/missing"), e.s.DeleteFolder(e.ctx, p+"/missing"))
		if isAbs {
			continue // a storage that is not confined would write there: never try
		}
		// A storage that is not confined writes next to its root here; the
		// case cleans up through the same path.
		if err := e.s.CreateFile(e.ctx, p+".txt", []byte("x")); err == nil {
			e.errorf("CreateFile(%q) succeeded, want an error wrapping core.ErrInvalidArgument", p+".txt")
			_ = e.s.DeleteFile(e.ctx, p+".txt")
		} else {
			check(fmt.Sprintf("CreateFile(%q)", p+".txt"), err)
		}
		if err := e.s.UpsertFile(e.ctx, p+".txt", []byte("x")); err == nil {
			e.errorf("UpsertFile(%q) succeeded, want an error wrapping core.ErrInvalidArgument", p+".txt")
			_ = e.s.DeleteFile(e.ctx, p+".txt")
		} else {
			check(fmt.Sprintf("UpsertFile(%q)", p+".txt"), err)
		}
		if err := e.s.CreateFolder(e.ctx, p); err == nil {
			e.errorf("CreateFolder(%q) succeeded, want an error wrapping core.ErrInvalidArgument", p)
			_ = e.s.DeleteFolder(e.ctx, p)
		} else {
			check(fmt.Sprintf("CreateFolder(%q)", p), err)
		}
	}
}
