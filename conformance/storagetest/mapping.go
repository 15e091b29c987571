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
		{name: "MapFile maps what ReadFile returns", run: needsMapper(mapContent)},
		{name: "MapFile of a missing file fails with fs.ErrNotExist", run: needsMapper(mapMissing)},
		{name: "a mapping keeps its bytes after its file is replaced or deleted", run: needsMapper(mapOutlivesTheFile)},
	}
}

func needsMapper(run func(e *env)) func(e *env) {
	return func(e *env) {
		if _, ok := e.s.(core.FileMapper); !ok {
			e.t.Skip("the storage does not implement core.FileMapper")
		}
		run(e)
	}
}

func (e *env) mapper() core.FileMapper { return e.s.(core.FileMapper) }

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
	if !e.mkdir("m") || !e.write("m/seg.bin", old) {
		return
	}
	m, err := e.mapper().MapFile(e.ctx, e.p("m/seg.bin"))
	if err != nil {
		e.errorf("MapFile: %w", err)
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
