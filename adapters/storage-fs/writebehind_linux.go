package storagefs

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// writeBehindChunk is how many written bytes a long write leaves to the
// kernel before it starts their write to disk.
const writeBehindChunk = 16 << 20

// writeBehind is a writer to f that starts the disk write of every
// writeBehindChunk bytes as soon as they are written, and waits for the
// chunk two before, as RocksDB's bytes_per_sync does: a file of gigabytes
// (a commit of Vectra's layout) reaches the disk at the pace it is
// written, with at most three chunks dirty, instead of all at once in the
// final fsync, a burst that stalls the machine's other work. The final
// fsync still makes the file durable and reports write errors; the hints
// here only pace the writes, and their errors are ignored.
func writeBehind(f *os.File) io.Writer { return &behindWriter{f: f, fd: int(f.Fd())} }

type behindWriter struct {
	f       *os.File
	fd      int
	written int64 // bytes written
	started int64 // bytes whose write to disk has started
	waited  int64 // bytes waited for
}

func (w *behindWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.written += int64(n)
	for err == nil && w.written-w.started >= writeBehindChunk {
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
