package storagetest

import (
	"context"
	"io"
	"time"

	"github.com/foliovec/folio/core"
)

// tempFileRemoverCases hold for storages that implement core.TempFileRemover.
func tempFileRemoverCases() []rule {
	return []rule{
		{name: "RemoveTempFiles never removes a file ListFiles lists", run: needs[core.TempFileRemover](tempKeepsListedFiles)},
		{name: "RemoveTempFiles returns an ended context's error", run: needs[core.TempFileRemover](tempCancelled)},
		{name: "RemoveTempFiles leaves a write in progress whole", run: needs[core.TempFileRemover](tempKeepsLiveWrite)},
	}
}

// The files a storage's own writes leave behind are its business; what it
// lists is the user's, and stays, however old.
func tempKeepsListedFiles(e *env) {
	if !e.mkdir("t/sub") || !e.write("t/a.json", []byte("a")) || !e.write("t/.hidden", []byte("h")) || !e.write("t/sub/b.txt", []byte("b")) {
		return
	}
	before, err := e.s.ListFiles(e.ctx, e.p("t"), core.ListAll)
	if err != nil {
		e.errorf("ListFiles: %w", err)
		return
	}
	for _, older := range []time.Duration{0, time.Hour} {
		n, err := e.opt.TempFileRemover.RemoveTempFiles(e.ctx, e.p("t"), older)
		if err != nil {
			e.errorf("RemoveTempFiles(%v): %w", older, err)
			return
		}
		if n != 0 {
			e.errorf("RemoveTempFiles(%v) removed %d files from a folder the suite wrote only listed files to", older, n)
		}
	}
	after, err := e.s.ListFiles(e.ctx, e.p("t"), core.ListAll)
	if err != nil || len(after) != len(before) {
		e.errorf("after RemoveTempFiles the folder lists %d entries (%v), before %d", len(after), err, len(before))
	}
	e.wantContent("a listed file", "t/a.json", []byte("a"))
	e.wantContent("a file in a sub-folder", "t/sub/b.txt", []byte("b"))
}

// A write still running (its temporary file younger than olderThan) is not
// an interrupted one: RemoveTempFiles leaves it, and it completes whole.
func tempKeepsLiveWrite(e *env) {
	sw := e.opt.FileStreamWriter
	if sw == nil {
		e.t.Skip("the storage does not implement core.FileStreamWriter")
	}
	if !e.mkdir("t") {
		return
	}
	var removed int
	var removeErr error
	err := sw.UpsertFileFrom(e.ctx, e.p("t/f.bin"), func(w io.Writer) error {
		if _, err := w.Write([]byte("first half, ")); err != nil {
			return err
		}
		removed, removeErr = e.opt.TempFileRemover.RemoveTempFiles(e.ctx, e.p("t"), time.Hour)
		_, err := w.Write([]byte("second half"))
		return err
	})
	if removeErr != nil || removed != 0 {
		e.errorf("RemoveTempFiles during a write removed %d files (%v); want 0", removed, removeErr)
	}
	if err != nil {
		e.errorf("the write RemoveTempFiles ran during: %w", err)
		return
	}
	e.wantContent("the file written while RemoveTempFiles ran", "t/f.bin", []byte("first half, second half"))
}

func tempCancelled(e *env) {
	if !e.mkdir("t") {
		return
	}
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	if _, err := e.opt.TempFileRemover.RemoveTempFiles(ctx, e.p("t"), 0); err != context.Canceled {
		e.errorf("RemoveTempFiles with a cancelled context = %v, want context.Canceled unchanged", err)
	}
}
