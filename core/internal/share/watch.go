// Package share holds what an index needs to share its folder with other
// processes: the versions of the files whose change means another process
// committed (Watch), the folder's list of dropped files (Dropped), and the
// folder lock when the storage offers one (Lock). It knows nothing of
// core's types: its small interfaces are met by core's storage ports.
package share

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"sync/atomic"
	"time"
)

// Versioner is core.FileVersioner.
type Versioner interface {
	FileVersion(ctx context.Context, path string) (string, error)
}

// Locker is core.FolderLocker.
type Locker interface {
	LockFolder(ctx context.Context, folderPath string) (func(), error)
}

// Lock takes the folder lock of storage when it offers one (Locker); the
// returned unlock is never nil when err is nil. A missing folder has
// nothing to protect: the read or write that follows reports it.
func Lock(ctx context.Context, storage any, folder string) (func(), error) {
	l, ok := storage.(Locker)
	if !ok {
		return func() {}, nil
	}
	unlock, err := l.LockFolder(ctx, folder)
	switch {
	case err == nil:
		return unlock, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, fs.ErrNotExist):
		return func() {}, nil
	}
	return nil, fmt.Errorf("lock folder: %w", err)
}

// Unknown stands for a version that could not be learned; it equals no
// version a storage returns, so the next check reloads.
const Unknown = "\x00unknown"

// Watch tracks the versions of the watched files (the index file, and a
// document index's catalog) as this process last read or wrote them, and
// tells when another process has changed one. Without a Versioner it does
// nothing and reports no change, as in Vectra. It is safe for concurrent
// use; Set, Note and Forget are called by the index's writer.
type Watch struct {
	versioner Versioner
	every     time.Duration // readers' check interval; negative: never
	log       *slog.Logger
	watched   []string
	nextCheck atomic.Int64                      // when readers next check, in Unix nanoseconds
	seen      atomic.Pointer[map[string]string] // path → version ("" missing); published maps never change
}

// NewWatch returns a watch of path through v (nil: no watch), checked by
// readers at most once per every (negative: never).
func NewWatch(v Versioner, every time.Duration, path string, log *slog.Logger) *Watch {
	return &Watch{versioner: v, every: every, log: log, watched: []string{path}}
}

// Add watches one more file. Call it before the watch is shared.
func (w *Watch) Add(path string) {
	if w.versioner != nil {
		w.watched = append(w.watched, path)
	}
}

// On reports whether the storage offers versions.
func (w *Watch) On() bool { return w.versioner != nil }

// Checking reports whether readers check for changes: the storage offers
// versions and the interval is not negative.
func (w *Watch) Checking() bool { return w.versioner != nil && w.every >= 0 }

// Due reports whether a reader should check now, at most once per
// interval across every reader.
func (w *Watch) Due() bool {
	if !w.Checking() {
		return false
	}
	now := time.Now().UnixNano()
	next := w.nextCheck.Load()
	return now >= next && w.nextCheck.CompareAndSwap(next, now+int64(w.every))
}

// version returns the version of the file p, "" when it is missing.
func (w *Watch) version(ctx context.Context, p string) (string, error) {
	v, err := w.versioner.FileVersion(ctx, p)
	if errors.Is(err, fs.ErrNotExist) && ctx.Err() == nil {
		return "", nil
	}
	return v, err
}

// Current is the version of p for recording: a failure gives Unknown,
// logged, so that the next check reloads. Without versions it is "".
func (w *Watch) Current(ctx context.Context, p string) string {
	if w.versioner == nil {
		return ""
	}
	v, err := w.version(ctx, p)
	if err != nil {
		w.log.Warn("read file version", "path", p, "err", err)
		return Unknown
	}
	return v
}

// Note records the version of p as it is now, right after this process
// wrote it.
func (w *Watch) Note(ctx context.Context, p string) {
	if w.versioner != nil {
		w.Set(p, w.Current(ctx, p))
	}
}

// Set records v as the known version of p.
func (w *Watch) Set(p, v string) {
	if w.versioner == nil {
		return
	}
	next := map[string]string{}
	if old := w.seen.Load(); old != nil {
		next = maps.Clone(*old)
	}
	next[p] = v
	w.seen.Store(&next)
}

// SetUnknown records every watched file's version as Unknown: the next
// check reloads whatever is on disk.
func (w *Watch) SetUnknown() {
	for _, p := range w.watched {
		w.Set(p, Unknown)
	}
}

// Forget forgets every known version (the index was deleted).
func (w *Watch) Forget() { w.seen.Store(nil) }

// Changed reports whether a watched file this process has read or written
// has another version now: another process committed since.
func (w *Watch) Changed(ctx context.Context) (bool, error) {
	if w.versioner == nil {
		return false, nil
	}
	seen := w.seen.Load()
	if seen == nil {
		return false, nil
	}
	for _, p := range w.watched {
		known, ok := (*seen)[p]
		if !ok {
			continue
		}
		v, err := w.version(ctx, p)
		if err != nil {
			return false, err
		}
		if v != known {
			return true, nil
		}
	}
	return false, nil
}
