package storagefs

import (
	"errors"
	"io"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	// writeBehindChunk is how many written bytes a long write leaves to
	// the kernel before it starts their write to disk.
	writeBehindChunk = 16 << 20
	// directAfter is the length past which a write goes around the page
	// cache, in blocks of directBlock bytes aligned to directAlign.
	directAfter = 64 << 20
	directBlock = 4 << 20
	directAlign = 4096
)

// writeBehind returns the writer a streamed write writes f with, and the
// function that ends the writing (before the file is synced).
//
// The first directAfter bytes go through the page cache, and every
// writeBehindChunk of them is handed to the disk as soon as it is written
// (waiting for the chunk two before), as RocksDB's bytes_per_sync does, so
// that the final fsync has little left to do. For a cold file (ColdFile,
// core.ColdFileHint), past directAfter and where the file system takes
// it, the rest is written with O_DIRECT in aligned blocks: a file of
// gigabytes (a commit of Vectra's layout) then costs almost no CPU to
// write (1.5 GB here: 0.3 s of system time, against 3.6 s through the
// page cache), so queries answered meanwhile keep their speed, and the
// file does not crowd the page cache. The last block is padded and the
// file cut back to its length. Where direct writes are refused, at the
// switch or at a write, the rest goes through the page cache. A file that
// is not cold (a segment, mapped once written) stays in the page cache.
//
// blocks keeps the aligned blocks between writes.
func writeBehind(f *os.File, blocks *sync.Pool) (io.Writer, func() error) {
	w := &behindWriter{f: f, fd: int(f.Fd()), blocks: blocks}
	return w, w.finish
}

type behindWriter struct {
	f       *os.File
	fd      int
	written int64 // bytes taken, those still in block included
	started int64 // bytes whose write to disk has started
	waited  int64 // bytes waited for
	// block is where direct writes gather (aligned), once the write has
	// passed directAfter; filled is how much of it is in use.
	block  []byte
	filled int
	blocks *sync.Pool // where block comes from and goes back to
	pooled *[]byte    // block as the pool holds it
	// cold is set by ColdFile; refused once the file system refused
	// direct writes.
	cold, refused bool
}

// ColdFile lets the write go direct past directAfter (core.ColdFileHint).
func (w *behindWriter) ColdFile() { w.cold = true }

func (w *behindWriter) Write(p []byte) (int, error) {
	n := 0
	if w.block == nil {
		n = len(p)
		if w.cold && !w.refused && w.written+int64(n) > directAfter {
			n = int(max(0, directAfter-w.written))
		}
		if m, err := w.buffered(p[:n]); err != nil || n == len(p) {
			return m, err
		}
		w.goDirect()
		if w.block == nil {
			m, err := w.buffered(p[n:])
			return n + m, err
		}
	}
	for n < len(p) {
		c := copy(w.block[w.filled:], p[n:])
		w.filled += c
		w.written += int64(c)
		n += c
		if w.filled == len(w.block) {
			if err := w.writeBlock(w.block); err != nil {
				return n, err
			}
			w.filled = 0
		}
	}
	return n, nil
}

// buffered writes p through the page cache, starting the disk write of
// each full chunk.
func (w *behindWriter) buffered(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.written += int64(n)
	for err == nil && w.written-w.started >= writeBehindChunk {
		// The hints only pace the writes: the final fsync reports errors.
		_ = unix.SyncFileRange(w.fd, w.started, writeBehindChunk, unix.SYNC_FILE_RANGE_WRITE)
		w.started += writeBehindChunk
		if w.started-w.waited > 2*writeBehindChunk {
			_ = unix.SyncFileRange(w.fd, w.waited, writeBehindChunk,
				unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
			w.waited += writeBehindChunk
		}
	}
	return n, err
}

// goDirect turns direct writes on, at an aligned length (directAfter).
func (w *behindWriter) goDirect() {
	if err := w.setDirect(true); err != nil {
		w.refused = true
		return
	}
	w.pooled, _ = w.blocks.Get().(*[]byte)
	if w.pooled == nil {
		b := alignedBlock(directBlock)
		w.pooled = &b
	}
	w.block = *w.pooled
}

func (w *behindWriter) setDirect(on bool) error {
	fl, err := unix.FcntlInt(uintptr(w.fd), unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	if on {
		fl |= unix.O_DIRECT
	} else {
		fl &^= unix.O_DIRECT
	}
	_, err = unix.FcntlInt(uintptr(w.fd), unix.F_SETFL, fl)
	return err
}

// writeBlock writes b, a whole number of aligned blocks, at the file's end;
// when the file system refuses it as a direct write, direct writes are
// turned off and b is written through the page cache.
func (w *behindWriter) writeBlock(b []byte) error {
	_, err := w.f.Write(b)
	if errors.Is(err, unix.EINVAL) && !w.refused {
		w.refused = true
		if err = w.setDirect(false); err == nil {
			_, err = w.f.Write(b)
		}
	}
	return err
}

// finish writes what is left of the last direct block, padded to the
// alignment, and cuts the file back to the length written.
func (w *behindWriter) finish() error {
	if w.pooled != nil {
		defer w.blocks.Put(w.pooled)
	}
	if w.filled == 0 {
		return nil
	}
	padded := (w.filled + directAlign - 1) &^ (directAlign - 1)
	clear(w.block[w.filled:padded])
	if err := w.writeBlock(w.block[:padded]); err != nil {
		return err
	}
	w.filled = 0
	return w.f.Truncate(w.written)
}

// alignedBlock returns size bytes whose address is a multiple of
// directAlign, as direct writes require.
func alignedBlock(size int) []byte {
	b := make([]byte, size+directAlign)
	off := (directAlign - int(uintptr(unsafe.Pointer(&b[0]))%directAlign)) % directAlign
	return b[off : off+size : off+size]
}
