package storagetest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"

	"github.com/foliovec/folio/core"
)

// fileStreamerCases hold for storages that implement core.FileStreamer.
func fileStreamerCases() []rule {
	return []rule{
		{name: "OpenFile streams what ReadFile returns, with its size", run: needsStreamer(streamContent)},
		{name: "OpenFile of a missing file fails with fs.ErrNotExist", run: needsStreamer(streamMissing)},
		{name: "OpenFile's reads return the context's error once it ends", run: needsStreamer(streamCancelled)},
	}
}

func needsStreamer(run func(e *env)) func(e *env) {
	return func(e *env) {
		if _, ok := e.s.(core.FileStreamer); !ok {
			e.t.Skip("the storage does not implement core.FileStreamer")
		}
		run(e)
	}
}

func (e *env) streamer() core.FileStreamer { return e.s.(core.FileStreamer) }

func streamContent(e *env) {
	for _, content := range [][]byte{{}, []byte("x"), bytes.Repeat([]byte("0123456789abcdef"), 300_000)} {
		if !e.mkdir("s") || !e.write("s/file.bin", content) {
			return
		}
		rc, size, err := e.streamer().OpenFile(e.ctx, e.p("s/file.bin"))
		if err != nil {
			e.errorf("OpenFile: %w", err)
			return
		}
		got, err := io.ReadAll(rc)
		if cerr := rc.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			e.errorf("reading %d bytes: %w", len(content), err)
			return
		}
		if !bytes.Equal(got, content) {
			e.errorf("OpenFile streamed %d bytes, want the %d written", len(got), len(content))
		}
		if size != -1 && size != int64(len(content)) {
			e.errorf("OpenFile size = %d, want %d (or -1)", size, len(content))
		}
	}
}

func streamMissing(e *env) {
	_, _, err := e.streamer().OpenFile(e.ctx, e.p("missing.bin"))
	if !errors.Is(err, fs.ErrNotExist) {
		e.errorf("OpenFile of a missing file: %v, want fs.ErrNotExist", err)
	}
}

func streamCancelled(e *env) {
	if !e.mkdir("s") || !e.write("s/file.bin", bytes.Repeat([]byte("z"), 4<<20)) {
		return
	}
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	rc, _, err := e.streamer().OpenFile(ctx, e.p("s/file.bin"))
	if err != nil {
		e.errorf("OpenFile: %w", err)
		return
	}
	defer rc.Close()
	cancel()
	_, err = io.ReadAll(rc)
	if !errors.Is(err, context.Canceled) {
		e.errorf("reading after the context ended: %v, want context.Canceled", err)
	}
}
