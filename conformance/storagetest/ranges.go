package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
)

// fileRangeReaderCases hold for storages that implement
// core.FileRangeReader.
func fileRangeReaderCases() []rule {
	return []rule{
		{name: "OpenFileRange reads the parts of what ReadFile returns, with its size", run: needs[core.FileRangeReader](rangeContent)},
		{name: "a range past the end of the file fails with io.ErrUnexpectedEOF", run: needs[core.FileRangeReader](rangePastTheEnd)},
		{name: "OpenFileRange of a missing file fails with fs.ErrNotExist", run: needs[core.FileRangeReader](rangeMissing)},
		{name: "ReadRange returns the context's error once it ends", run: needs[core.FileRangeReader](rangeCancelled)},
		{name: "a file opened for ranges reads its content or fails with fs.ErrNotExist once deleted", run: needs[core.FileRangeReader](rangeAfterDelete)},
		{name: "a 4-bit segmented index reads its segment in parts and answers as the exact scan", run: needs[core.FileRangeReader](rangedIndex)},
	}
}

// openRanges writes content to r/file.bin and opens it for ranges; false
// when that failed (reported).
func (e *env) openRanges(content []byte) (core.RangeFile, bool) {
	if !e.mkdir("r") || !e.write("r/file.bin", content) {
		return nil, false
	}
	f, err := e.opt.FileRangeReader.OpenFileRange(e.ctx, e.p("r/file.bin"))
	if err != nil {
		e.errorf("OpenFileRange: %w", err)
		return nil, false
	}
	return f, true
}

func rangeContent(e *env) {
	content := bytes.Repeat([]byte("0123456789abcdef"), 100_000)
	f, ok := e.openRanges(content)
	if !ok {
		return
	}
	defer f.Close()
	if f.Size() != int64(len(content)) {
		e.errorf("Size = %d, want %d", f.Size(), len(content))
	}
	for _, r := range [][2]int{{0, 0}, {0, 1}, {5, 17}, {1000, 300_000}, {len(content) - 3, len(content)}, {0, len(content)}} {
		p := make([]byte, r[1]-r[0])
		if err := f.ReadRange(e.ctx, p, int64(r[0])); err != nil {
			e.errorf("ReadRange(%d bytes at %d): %w", len(p), r[0], err)
			continue
		}
		if !bytes.Equal(p, content[r[0]:r[1]]) {
			e.errorf("ReadRange(%d bytes at %d) read other bytes than the file's", len(p), r[0])
		}
	}
	if rb, ok := f.(core.RangeBatcher); ok {
		spans := [][2]int{{5, 17}, {0, 0}, {3, 9}, {40_000, 40_100}, {40_050, 41_000}, {len(content) - 3, len(content)}, {1000, 300_000}}
		parts := make([]core.FilePart, len(spans))
		for i, r := range spans {
			parts[i] = core.FilePart{P: make([]byte, r[1]-r[0]), Off: int64(r[0])}
		}
		if err := rb.ReadRanges(e.ctx, parts); err != nil {
			e.errorf("ReadRanges: %w", err)
		}
		for i, r := range spans {
			if !bytes.Equal(parts[i].P, content[r[0]:r[1]]) {
				e.errorf("ReadRanges: part %d (%d bytes at %d) holds other bytes than the file's", i, r[1]-r[0], r[0])
			}
		}
		past := []core.FilePart{{P: make([]byte, 4), Off: 0}, {P: make([]byte, 4), Off: int64(len(content) - 2)}}
		if err := rb.ReadRanges(e.ctx, past); !errors.Is(err, io.ErrUnexpectedEOF) {
			e.errorf("ReadRanges with a part past the end: %v, want io.ErrUnexpectedEOF", err)
		}
	}
	if err := f.Close(); err != nil {
		e.errorf("Close: %w", err)
	}
}

func rangePastTheEnd(e *env) {
	f, ok := e.openRanges([]byte("twelve bytes"))
	if !ok {
		return
	}
	defer f.Close()
	for _, r := range [][2]int64{{8, 5}, {12, 1}, {100, 1}} {
		if err := f.ReadRange(e.ctx, make([]byte, r[1]), r[0]); !errors.Is(err, io.ErrUnexpectedEOF) {
			e.errorf("ReadRange(%d bytes at %d) of 12: %v, want io.ErrUnexpectedEOF", r[1], r[0], err)
		}
	}
}

func rangeMissing(e *env) {
	if _, err := e.opt.FileRangeReader.OpenFileRange(e.ctx, e.p("no/such.bin")); !errors.Is(err, fs.ErrNotExist) {
		e.errorf("OpenFileRange of a missing file: %v, want fs.ErrNotExist", err)
	}
}

func rangeCancelled(e *env) {
	f, ok := e.openRanges([]byte("some bytes"))
	if !ok {
		return
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	if err := f.ReadRange(ctx, make([]byte, 4), 0); !errors.Is(err, context.Canceled) {
		e.errorf("ReadRange with a cancelled context: %v, want context.Canceled", err)
	}
}

// Folio deletes a segment file only after a compaction, while readers may
// still be on it: their reads return the file's bytes, or fail as a read of
// a missing file does (the reader then reads the index again), never other
// bytes.
func rangeAfterDelete(e *env) {
	content := []byte("a file that is deleted while open")
	f, ok := e.openRanges(content)
	if !ok {
		return
	}
	defer f.Close()
	if err := e.s.DeleteFile(e.ctx, e.p("r/file.bin")); err != nil {
		e.errorf("DeleteFile: %w", err)
		return
	}
	p := make([]byte, 7)
	err := f.ReadRange(e.ctx, p, 2)
	switch {
	case err == nil && !bytes.Equal(p, content[2:9]):
		e.errorf("ReadRange after the file was deleted read %q, want %q", p, content[2:9])
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		e.errorf("ReadRange after the file was deleted: %v, want the bytes or fs.ErrNotExist", err)
	}
}

// rangesOnly is a storage seen only as a FileStorage that reads parts of
// files (a storage that also maps files is read in parts through it),
// counting the whole reads of segment files.
type rangesOnly struct {
	core.FileStorage
	rr       core.FileRangeReader
	segReads atomic.Int64
}

func (r *rangesOnly) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if strings.HasSuffix(p, ".seg") {
		r.segReads.Add(1)
	}
	return r.FileStorage.ReadFile(ctx, p)
}

func (r *rangesOnly) OpenFileRange(ctx context.Context, p string) (core.RangeFile, error) {
	return r.rr.OpenFileRange(ctx, p)
}

// rangedIndex builds a segmented index of 2,000 items with 4-bit codes
// and opens it again: the segment is read in parts, not whole, and the
// answers, vectors included, are those of an index reading every vector.
func rangedIndex(e *env) {
	st := &rangesOnly{FileStorage: e.s, rr: e.opt.FileRangeReader}
	ctx, folder := e.ctx, e.p("ranged")
	opts := core.IndexOptions{Storage: st, Codec: reference.Codec{}, ScanCodes: core.CodesInt4}
	vec := func(i int) []float32 {
		v := make([]float32, 16)
		for j := range v {
			v[j] = float32(math.Sin(float64(i*16+j) * 0.7))
		}
		return v
	}
	w, err := core.NewLocalIndex(folder, opts)
	if err == nil {
		err = w.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented})
	}
	if err != nil {
		e.errorf("create a segmented index: %w", err)
		return
	}
	items := make([]core.IndexItem, 2000)
	for i := range items {
		items[i] = core.IndexItem{ID: fmt.Sprint("item-", i), Vector: vec(i)}
	}
	if _, err := w.BatchInsertItems(ctx, items); err != nil {
		e.errorf("BatchInsertItems: %w", err)
		return
	}
	before := st.segReads.Load()
	ranged, err := core.NewLocalIndex(folder, opts)
	if err != nil {
		e.errorf("NewLocalIndex: %w", err)
		return
	}
	exact, err := core.NewLocalIndex(folder, core.IndexOptions{Storage: e.s, Codec: reference.Codec{}, ResidentVectors: true})
	if err != nil {
		e.errorf("NewLocalIndex: %w", err)
		return
	}
	for _, i := range []int{0, 7, 1999} {
		got, err := ranged.QueryItems(ctx, vec(i), "", 5, nil, false)
		if err != nil {
			e.errorf("query of the index read in parts: %w", err)
			return
		}
		want, err := exact.QueryItems(ctx, vec(i), "", 5, nil, false)
		if err != nil {
			e.errorf("query of the exact index: %w", err)
			return
		}
		for r := range want {
			if r >= len(got) || got[r].Item.ID != want[r].Item.ID || got[r].Score != want[r].Score || !slices.Equal(got[r].Item.Vector, want[r].Item.Vector) {
				e.errorf("query %d, rank %d: the index read in parts answers differently from the exact one", i, r)
				return
			}
		}
	}
	if n := st.segReads.Load() - before; n != 0 {
		e.errorf("the index with 4-bit codes read %d segment files whole, want none", n)
	}
}
