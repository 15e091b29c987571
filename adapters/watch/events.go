package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/foliovec/folio/core/filetree"
)

// run is a started watcher's machinery: the fsnotify watcher, the
// goroutine reading its events into a set of pending paths, and the
// goroutine syncing them once quiet.
type run struct {
	w      *FolderWatcher
	fsw    *fsnotify.Watcher
	ctx    context.Context // done at Stop
	cancel context.CancelFunc
	ready  chan struct{} // closed when the writer may start

	readerDone chan struct{}
	writerDone chan struct{}
	wake       chan struct{} // a pending path or a full sync, buffered 1

	mu       sync.Mutex
	roots    []string           // the resolved paths watched
	watched  map[string]string  // watched folder → its real path
	real     map[string]bool    // real paths of watched folders
	pending  map[string]pending // paths changed, not yet synced
	fullSync bool               // the event queue overflowed: sync everything
}

// pending is a changed path's debounce: it is synced at due, which each
// event pushes back, but never later than first + maxWait.
type pending struct{ first, due time.Time }

func newRun(w *FolderWatcher, fsw *fsnotify.Watcher) *run {
	ctx, cancel := context.WithCancel(context.Background())
	return &run{
		w: w, fsw: fsw, ctx: ctx, cancel: cancel,
		ready:      make(chan struct{}),
		readerDone: make(chan struct{}),
		writerDone: make(chan struct{}),
		wake:       make(chan struct{}, 1),
		watched:    map[string]string{},
		real:       map[string]bool{},
		pending:    map[string]pending{},
	}
}

// stop ends both goroutines and waits for them; the writer finishes the
// round in progress, its context cancelled.
func (r *run) stop() {
	r.cancel()
	r.fsw.Close()
	<-r.readerDone
	<-r.writerDone
}

// watchRoots watches every folder below roots, and the folder of every
// root that is a file.
func (r *run) watchRoots(roots []string) {
	r.mu.Lock()
	r.roots = roots
	r.mu.Unlock()
	for _, root := range roots {
		info, err := os.Stat(root)
		switch {
		case err != nil:
			// A missing path is skipped, as in Vectra.
		case info.IsDir():
			r.watchTree(root)
		default:
			r.watchFolder(filepath.Dir(root))
		}
	}
}

// watchTree watches dir and every folder below it, by the rules of the
// scan (inside the watched paths unless FollowLinks, never the index's
// folder); each real folder is watched once.
func (r *run) watchTree(dir string) {
	r.mu.Lock()
	roots := r.roots
	r.mu.Unlock()
	if r.w.skip != "" && filetree.Under(dir, r.w.skip) {
		return
	}
	// A folder made while watching may be a link leading out.
	if real, err := filepath.EvalSymlinks(dir); err != nil || !r.w.cfg.FollowLinks && !underAny(real, roots) {
		return
	}
	opts := r.w.walkOptions(roots)
	opts.OnFolder = func(p string) error {
		if !r.watchFolder(p) {
			return filetree.SkipDir
		}
		return nil
	}
	_ = filetree.Walk(r.ctx, dir, opts, func(filetree.Entry) error { return nil }) // the scan reports what it cannot read
}

// watchFolder watches dir unless its real folder is watched already, and
// reports whether it started watching.
func (r *run) watchFolder(dir string) bool {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.real[real] || r.ctx.Err() != nil {
		return false
	}
	if err := r.fsw.Add(dir); err != nil {
		if r.ctx.Err() == nil {
			r.w.reportError(fmt.Errorf("watch %s: %w", dir, err), dir)
		}
		return false
	}
	r.watched[dir] = real
	r.real[real] = true
	return true
}

// unwatchTree stops watching p and every folder below it (p was removed or
// renamed away; a renamed folder's watch would go on reporting under its
// old name).
func (r *run) unwatchTree(p string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for dir, real := range r.watched {
		if filetree.Under(dir, p) {
			_ = r.fsw.Remove(dir) // the kernel may have dropped it already
			delete(r.watched, dir)
			delete(r.real, real)
		}
	}
}

// relevant reports whether an event's path is one the watcher syncs:
// below a watched folder root, or a watched file root; never in the index
// folder.
func (r *run) relevant(p string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w.skip != "" && filetree.Under(p, r.w.skip) {
		return false
	}
	for _, root := range r.roots {
		if filetree.Under(p, root) {
			return true
		}
	}
	// A folder outside the roots, watched through a link FollowLinks
	// followed.
	_, watched := r.watched[filepath.Dir(p)]
	return watched
}

// readEvents turns file events into pending paths until the fsnotify
// watcher is closed.
func (r *run) readEvents() {
	defer close(r.readerDone)
	for {
		select {
		case ev, ok := <-r.fsw.Events:
			if !ok {
				return
			}
			r.handle(ev)
		case err, ok := <-r.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				r.requestFullSync()
			} else if r.ctx.Err() == nil {
				r.w.reportError(fmt.Errorf("watch: %w", err), "")
			}
		}
	}
}

func (r *run) handle(ev fsnotify.Event) {
	p := ev.Name
	if ev.Op == fsnotify.Chmod || !r.relevant(p) {
		return // a bare attribute change leaves the content as it was
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		r.unwatchTree(p)
	}
	if ev.Has(fsnotify.Create) {
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			// Watch the new tree at once, so nothing created in it is
			// missed; its sync finds what is already there.
			r.watchTree(p)
		}
	}
	r.markPending(p)
}

// markPending schedules p's sync after the debounce.
func (r *run) markPending(p string) {
	now := time.Now()
	r.mu.Lock()
	pd, ok := r.pending[p]
	if !ok {
		pd.first = now
	}
	pd.due = now.Add(r.w.cfg.Debounce)
	if last := pd.first.Add(r.w.maxWait); last.Before(pd.due) {
		pd.due = last
	}
	r.pending[p] = pd
	r.mu.Unlock()
	r.signal()
}

func (r *run) requestFullSync() {
	r.mu.Lock()
	r.fullSync = true
	r.mu.Unlock()
	r.signal()
}

func (r *run) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// takeDue removes and returns the paths due at now (all of them, with
// full set, when a full sync is requested), and the time the next one is
// due (zero when none is pending).
func (r *run) takeDue(now time.Time) (paths []string, full bool, next time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fullSync {
		r.fullSync = false
		clear(r.pending)
		return nil, true, time.Time{}
	}
	for p, pd := range r.pending {
		if !pd.due.After(now) {
			paths = append(paths, p)
			delete(r.pending, p)
		} else if next.IsZero() || pd.due.Before(next) {
			next = pd.due
		}
	}
	slices.Sort(paths)
	return paths, false, next
}

// writeLoop syncs pending paths once they are due, one round at a time,
// until Stop.
func (r *run) writeLoop() {
	defer close(r.writerDone)
	select {
	case <-r.ready:
	case <-r.ctx.Done():
		return
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		paths, full, next := r.takeDue(time.Now())
		if len(paths) > 0 || full {
			r.round(paths, full)
			continue
		}
		if !next.IsZero() {
			timer.Reset(time.Until(next))
		} else {
			timer.Stop()
		}
		select {
		case <-r.ctx.Done():
			return
		case <-r.wake:
		case <-timer.C:
		}
	}
}

// round syncs paths (or everything) as the one writer.
func (r *run) round(paths []string, full bool) {
	r.w.writeMu.Lock()
	defer r.w.writeMu.Unlock()
	if r.ctx.Err() != nil {
		return
	}
	var err error
	if full {
		_, err = r.w.syncAll(r.ctx)
	} else {
		_, err = r.w.syncPaths(r.ctx, paths)
	}
	if err != nil && r.ctx.Err() == nil {
		r.w.reportError(err, "")
	}
}
