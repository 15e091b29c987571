package storagetest

import (
	"context"
	"time"

	"github.com/foliovec/folio/core"
)

func cancellationCases() []rule {
	return []rule{
		{name: "a cancelled context stops every method with context.Canceled, before any change", run: cancelled},
		{name: "an expired deadline stops every method with context.DeadlineExceeded, before any change", run: expired},
	}
}

func cancelled(e *env) {
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	stoppedBeforeChange(e, ctx, context.Canceled)
}

func expired(e *env) {
	ctx, cancel := context.WithDeadline(e.ctx, time.Now().Add(-time.Second))
	defer cancel()
	stoppedBeforeChange(e, ctx, context.DeadlineExceeded)
}

// stoppedBeforeChange calls every method with the done ctx and checks each
// fails with want and changes nothing.
func stoppedBeforeChange(e *env, ctx context.Context, want error) {
	if !e.mkdir("kept") || !e.write("kept/f.txt", []byte("kept")) || !e.write("del.txt", []byte("del")) {
		return
	}
	e.wantIs("CreateFile", e.s.CreateFile(ctx, e.p("new.txt"), []byte("x")), want)
	e.wantIs("UpsertFile of a new file", e.s.UpsertFile(ctx, e.p("new2.txt"), []byte("x")), want)
	e.wantIs("UpsertFile of a file", e.s.UpsertFile(ctx, e.p("kept/f.txt"), []byte("changed")), want)
	_, err := e.s.ReadFile(ctx, e.p("kept/f.txt"))
	e.wantIs("ReadFile", err, want)
	e.wantIs("DeleteFile", e.s.DeleteFile(ctx, e.p("del.txt")), want)
	_, err = e.s.PathExists(ctx, e.p("kept"))
	e.wantIs("PathExists", err, want)
	e.wantIs("CreateFolder", e.s.CreateFolder(ctx, e.p("newdir/sub")), want)
	e.wantIs("DeleteFolder", e.s.DeleteFolder(ctx, e.p("kept")), want)
	_, err = e.s.GetDetails(ctx, e.p("kept"))
	e.wantIs("GetDetails", err, want)
	_, err = e.s.ListFiles(ctx, e.p("kept"), core.ListAll)
	e.wantIs("ListFiles", err, want)

	for _, rel := range []string{"new.txt", "new2.txt", "newdir"} {
		e.wantExists("after the stopped calls", rel, false)
	}
	e.wantContent("after the stopped calls", "kept/f.txt", []byte("kept"))
	e.wantContent("after the stopped calls", "del.txt", []byte("del"))
}
