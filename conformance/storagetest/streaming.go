package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/foliovec/folio/core"
)

// fileStreamerCases hold for storages that implement core.FileStreamer.
func fileStreamerCases() []rule {
	return []rule{
		{name: "OpenFile streams what ReadFile returns, with its size", run: needs[core.FileStreamer](streamContent)},
		{name: "OpenFile of a missing file fails with fs.ErrNotExist", run: needs[core.FileStreamer](streamMissing)},
		{name: "OpenFile's reads return the context's error once it ends", run: needs[core.FileStreamer](streamCancelled)},
	}
}

func (e *env) streamer() core.FileStreamer { return e.opt.FileStreamer }

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

// fileStreamWriterCases hold for storages that implement
// core.FileStreamWriter.
func fileStreamWriterCases() []rule {
	return []rule{
		{name: "UpsertFileFrom writes what its function writes, new or replaced, byte for byte", run: needs[core.FileStreamWriter](streamWriteContent)},
		{name: "UpsertFileFrom whose function fails returns its error and leaves the file as it was", run: needs[core.FileStreamWriter](streamWriteFails)},
		{name: "UpsertFileFrom of a cold file (core.ColdFileHint) writes what its function writes, byte for byte", run: needs[core.FileStreamWriter](streamWriteCold)},
	}
}

// writeInPieces returns a function that writes content in pieces of n
// bytes, as an encoder does.
func writeInPieces(content []byte, n int) func(w io.Writer) error {
	return func(w io.Writer) error {
		for b := content; len(b) > 0; b = b[min(n, len(b)):] {
			if _, err := w.Write(b[:min(n, len(b))]); err != nil {
				return err
			}
		}
		return nil
	}
}

func streamWriteContent(e *env) {
	if !e.mkdir("w") {
		return
	}
	sw := e.opt.FileStreamWriter
	for _, content := range [][]byte{{}, []byte("x"), bytes.Repeat([]byte("0123456789abcdef"), 300_000)} {
		if err := sw.UpsertFileFrom(e.ctx, e.p("w/file.bin"), writeInPieces(content, 1000)); err != nil {
			e.errorf("UpsertFileFrom of %d bytes: %w", len(content), err)
			return
		}
		e.wantContent(fmt.Sprintf("after UpsertFileFrom of %d bytes", len(content)), "w/file.bin", content)
	}
	e.wantNames("UpsertFileFrom", "w", []string{"file.bin"})
}

func streamWriteFails(e *env) {
	if !e.mkdir("w") || !e.write("w/old.bin", []byte("the old content")) {
		return
	}
	sw := e.opt.FileStreamWriter
	boom := errors.New("the encoder failed")
	half := func(w io.Writer) error {
		if _, err := w.Write(bytes.Repeat([]byte("n"), 100_000)); err != nil {
			return err
		}
		return boom
	}
	if err := sw.UpsertFileFrom(e.ctx, e.p("w/old.bin"), half); !errors.Is(err, boom) {
		e.errorf("UpsertFileFrom over a file, its function failing: %v, want its error", err)
	}
	e.wantContent("after a failed UpsertFileFrom", "w/old.bin", []byte("the old content"))
	if err := sw.UpsertFileFrom(e.ctx, e.p("w/new.bin"), half); !errors.Is(err, boom) {
		e.errorf("UpsertFileFrom of a new file, its function failing: %v, want its error", err)
	}
	if ok, err := e.s.PathExists(e.ctx, e.p("w/new.bin")); err != nil || ok {
		e.errorf("a new file whose UpsertFileFrom failed exists: %v, %v", ok, err)
	}
	e.wantNames("failed UpsertFileFrom calls", "w", []string{"old.bin"})
}

// defaultColdSize is the length of the cold file written when
// Capabilities.ColdFileSize is 0.
const defaultColdSize = 1<<20 + 1234

func streamWriteCold(e *env) {
	if !e.mkdir("w") {
		return
	}
	sw := e.opt.FileStreamWriter
	hinted := false
	if err := sw.UpsertFileFrom(e.ctx, e.p("w/probe.bin"), func(w io.Writer) error {
		_, hinted = w.(core.ColdFileHint)
		return nil
	}); err != nil {
		e.errorf("UpsertFileFrom of an empty file: %w", err)
		return
	}
	if !hinted {
		e.t.Skip("the storage's stream writer does not implement core.ColdFileHint")
	}
	size := e.caps.ColdFileSize
	if size <= 0 {
		size = defaultColdSize
	}
	// A pattern of a prime period: a block written at the wrong offset,
	// or dropped, shows.
	const period = 4099
	content := make([]byte, size)
	for i := range content[:min(period, size)] {
		content[i] = byte(i*7 + i>>5)
	}
	for n := period; n < size; n *= 2 {
		copy(content[n:], content[:n])
	}
	cold := func(w io.Writer) error {
		w.(core.ColdFileHint).ColdFile()
		return writeInPieces(content, 1<<20+13)(w)
	}
	for range 2 { // new, then replaced
		if err := sw.UpsertFileFrom(e.ctx, e.p("w/cold.bin"), cold); err != nil {
			e.errorf("UpsertFileFrom of a cold file of %d bytes: %w", len(content), err)
			return
		}
		e.wantContent("after UpsertFileFrom of a cold file", "w/cold.bin", content)
	}
}
