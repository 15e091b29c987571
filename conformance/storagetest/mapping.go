package storagetest

import (
	"bytes"
	"errors"
	"io/fs"

	"github.com/foliovec/folio/core"
)

// fileMapperCases hold for storages that implement core.FileMapper.
func fileMapperCases() []rule {
	return []rule{
		{name: "MapFile maps what ReadFile returns", run: needs[core.FileMapper](mapContent)},
		{name: "MapFile of a missing file fails with fs.ErrNotExist", run: needs[core.FileMapper](mapMissing)},
		{name: "a mapping keeps its bytes after its file is replaced or deleted", run: needs[core.FileMapper](mapOutlivesTheFile)},
		{name: "a mapping keeps its bytes after ReleasePages, and ReleasePages after Close does nothing", run: needs[core.FileMapper](mapReleasesPages)},
	}
}

func (e *env) mapper() core.FileMapper { return e.opt.FileMapper }

// mapWritten writes content to rel (in folder "m") and maps it; false
// when that failed (reported).
func (e *env) mapWritten(rel string, content []byte) (core.MappedFile, bool) {
	if !e.mkdir("m") || !e.write(rel, content) {
		return nil, false
	}
	m, err := e.mapper().MapFile(e.ctx, e.p(rel))
	if err != nil {
		e.errorf("MapFile: %w", err)
		return nil, false
	}
	return m, true
}

func mapContent(e *env) {
	for _, content := range [][]byte{{}, []byte("x"), bytes.Repeat([]byte("0123456789abcdef"), 300_000)} {
		if !e.mkdir("m") || !e.write("m/file.bin", content) {
			return
		}
		m, err := e.mapper().MapFile(e.ctx, e.p("m/file.bin"))
		if err != nil {
			e.errorf("MapFile: %w", err)
			return
		}
		if got := m.Bytes(); !bytes.Equal(got, content) {
			e.errorf("MapFile mapped %d bytes, want the %d written", len(got), len(content))
		}
		if err := m.Close(); err != nil {
			e.errorf("Close: %w", err)
		}
	}
}

// ReleasePages (core.PageReleaser, where a mapping has it) drops pages
// from memory, never the bytes: reading again gives the file's content,
// even when the file was deleted meanwhile.
func mapReleasesPages(e *env) {
	content := bytes.Repeat([]byte("released pages "), 100_000)
	m, ok := e.mapWritten("m/file.bin", content)
	if !ok {
		return
	}
	r, ok := m.(core.PageReleaser)
	if !ok {
		m.Close()
		e.t.Skip("the storage's mappings do not implement core.PageReleaser")
	}
	_ = bytes.Count(m.Bytes(), []byte("p")) // read every page
	if err := e.s.DeleteFile(e.ctx, e.p("m/file.bin")); err != nil {
		e.errorf("DeleteFile: %w", err)
	}
	if err := r.ReleasePages(); err != nil {
		e.errorf("ReleasePages: %w", err)
	}
	if !bytes.Equal(m.Bytes(), content) {
		e.errorf("after ReleasePages the mapping holds other bytes than the file's")
	}
	if err := m.Close(); err != nil {
		e.errorf("Close: %w", err)
	}
	if err := r.ReleasePages(); err != nil {
		e.errorf("ReleasePages after Close: %w", err)
	}
}

func mapMissing(e *env) {
	if !e.mkdir("m") {
		return
	}
	if m, err := e.mapper().MapFile(e.ctx, e.p("m/missing.bin")); !errors.Is(err, fs.ErrNotExist) {
		if err == nil {
			m.Close()
		}
		e.errorf("MapFile of a missing file: %v, want fs.ErrNotExist", err)
	}
}

func mapOutlivesTheFile(e *env) {
	old := bytes.Repeat([]byte("old bytes "), 10_000)
	m, ok := e.mapWritten("m/seg.bin", old)
	if !ok {
		return
	}
	defer m.Close()
	if !e.write("m/seg.bin", bytes.Repeat([]byte("new bytes!"), 5_000)) {
		return
	}
	if !bytes.Equal(m.Bytes(), old) {
		e.errorf("after UpsertFile replaced the file, the mapping changed")
		return
	}
	if err := e.s.DeleteFile(e.ctx, e.p("m/seg.bin")); err != nil {
		e.errorf("DeleteFile: %w", err)
		return
	}
	if !bytes.Equal(m.Bytes(), old) {
		e.errorf("after DeleteFile, the mapping changed")
	}
}
