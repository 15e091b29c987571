package watch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/foliovec/folio/core"
)

// SyncAction is what a sync did to a document.
type SyncAction string

// The actions OnSync reports.
const (
	SyncAdded   SyncAction = "added"
	SyncUpdated SyncAction = "updated"
	SyncDeleted SyncAction = "deleted"
)

// DefaultDebounce is the quiet period of Options.Debounce's zero value, as in
// Vectra.
const DefaultDebounce = 500 * time.Millisecond

// ErrRunning is the error of Start on a running watcher.
var ErrRunning = errors.New("watch: the watcher is already running")

// Options configures a FolderWatcher.
type Options struct {
	// Index is the document index the watcher writes. Required.
	Index *core.LocalDocumentIndex
	// Paths are the folders and files to watch. Required. Relative paths
	// are made absolute and symbolic links in them resolved when the
	// watcher starts or syncs; a path that does not exist is skipped.
	Paths []string
	// Extensions are the file extensions to sync, with or without the dot,
	// in any case (".md", "TXT"). Empty means every file.
	Extensions []string
	// Debounce is how long a path must stay quiet after an event before it
	// is synced; events within it make one sync. A path that keeps
	// changing is synced at least every 4 Debounce. 0 means DefaultDebounce
	// (500 ms).
	Debounce time.Duration
	// OnReady is called once the initial sync of Start is done.
	OnReady func()
	// OnSync is called for every document a sync added, updated or
	// deleted, with its URI (the file's absolute path).
	OnSync func(uri string, action SyncAction)
	// FollowLinks follows symbolic links that lead outside the watched
	// paths; what they reach is stored under its real path. By default
	// such a link is skipped and reported to OnSkip, so a tree holding a
	// link to ~ or /etc syncs nothing from there.
	FollowLinks bool
	// MaxFileBytes caps the size of a file synced; a larger file is
	// skipped unread and reported to OnSkip. 0 means
	// filetree.DefaultMaxFileBytes (20 MiB); a negative value means no cap.
	MaxFileBytes int64
	// OnSkip, when set, is called for every file a sync passes over and
	// why: a symbolic link leading outside the watched paths
	// (filetree.ErrOutsideTree, in a *filetree.LinkError naming the
	// target), a binary file (filetree.ErrBinary), or one over
	// MaxFileBytes (filetree.ErrTooLarge).
	OnSkip func(path string, reason error)
	// OnError is called for every failure of a file (with its path) or of
	// the watcher itself (with the path concerned, or "").
	OnError func(err error, uri string)
}

// FolderWatcher keeps a document index in step with folders on disk. See
// the package documentation for the rules.
type FolderWatcher struct {
	cfg     Options
	exts    map[string]bool // lowercased, with the dot; nil means every file
	maxWait time.Duration   // the longest a changing path waits
	// skip is the index's folder, absolute: never synced even when it lies
	// under a watched path (the watcher would feed on its own writes).
	skip string

	// writeMu is held by whoever writes the index: the initial sync,
	// Sync, and each round of the event loop. It makes the watcher one
	// writer.
	writeMu sync.Mutex
	// cbMu makes the callbacks one at a time: the event reader reports
	// watch errors while the writer reports syncs.
	cbMu sync.Mutex

	mu      sync.Mutex // guards the fields below
	running bool
	tracked map[string]struct{} // URIs in the index under the watched paths
	run     *run                // the running watcher's machinery; nil when stopped
}

// New returns a stopped watcher for opts, or an error wrapping
// core.ErrInvalidArgument when opts is nil or has no Index or no Paths.
func New(opts *Options) (*FolderWatcher, error) {
	if opts == nil {
		return nil, fmt.Errorf("watch: %w: options with an Index and Paths are required", core.ErrInvalidArgument)
	}
	cfg := *opts
	if cfg.Index == nil {
		return nil, fmt.Errorf("watch: %w: Options.Index is required", core.ErrInvalidArgument)
	}
	if len(cfg.Paths) == 0 {
		return nil, fmt.Errorf("watch: %w: Options.Paths is required", core.ErrInvalidArgument)
	}
	if cfg.Debounce <= 0 {
		cfg.Debounce = DefaultDebounce
	}
	cfg.Paths = append([]string(nil), cfg.Paths...)
	w := &FolderWatcher{cfg: cfg, maxWait: 4 * cfg.Debounce, skip: indexFolder(cfg.Index.FolderPath()), tracked: map[string]struct{}{}}
	if len(cfg.Extensions) > 0 {
		w.exts = make(map[string]bool, len(cfg.Extensions))
		for _, e := range cfg.Extensions {
			e = strings.ToLower(strings.TrimSpace(e))
			if e == "" {
				continue
			}
			if !strings.HasPrefix(e, ".") {
				e = "." + e
			}
			w.exts[e] = true
		}
	}
	return w, nil
}

// IsRunning reports whether the watcher is between Start and Stop.
func (w *FolderWatcher) IsRunning() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.running
}

// TrackedFileCount is the number of documents in the index under the
// watched paths, as of the last sync.
func (w *FolderWatcher) TrackedFileCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.tracked)
}

// Start syncs the watched paths into the index, calls OnReady, and watches
// them until Stop. The file events are watched from before the sync, so a
// change made during it is synced after it. ctx bounds the initial sync
// only; the watcher runs until Stop. Start on a running watcher is
// ErrRunning; an error from the initial sync as a whole (a missing index,
// ctx done) stops the watcher and is returned.
func (w *FolderWatcher) Start(ctx context.Context) error {
	w.mu.Lock()
	if w.running {
		w.mu.Unlock()
		return ErrRunning
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		w.mu.Unlock()
		return fmt.Errorf("watch: start: %w", err)
	}
	r := newRun(w, fsw)
	w.running, w.run = true, r
	w.mu.Unlock()

	r.watchRoots(w.resolveRoots())
	go r.readEvents()
	go r.writeLoop() // waits for r.ready

	// The initial sync ends early when ctx is done or Stop is called.
	syncCtx, cancel := context.WithCancel(ctx)
	stopSync := context.AfterFunc(r.ctx, cancel)
	_, err = w.Sync(syncCtx)
	stopSync()
	cancel()
	if err != nil {
		w.Stop()
		return err
	}
	if w.cfg.OnReady != nil && r.ctx.Err() == nil {
		w.callback(w.cfg.OnReady)
	}
	close(r.ready)
	return nil
}

// Stop stops watching: the sync in progress ends at its next commit, Stop
// waits for it, and nothing is written after Stop returns. Pending changes
// are left to the next Start, which finds them. Stop on a stopped watcher
// does nothing.
func (w *FolderWatcher) Stop() {
	w.mu.Lock()
	r := w.run
	w.running, w.run = false, nil
	w.mu.Unlock()
	if r == nil {
		return
	}
	r.stop()
	// A Sync called by the user, or the initial one, may still hold the
	// writer: wait for it too.
	w.writeMu.Lock()
	//lint:ignore SA2001 the empty critical section waits for the writer
	w.writeMu.Unlock()
}

// Sync syncs every watched path into the index now, whether the watcher
// runs or not: files new or changed (by content) are upserted, documents
// under the paths whose file is gone are deleted. It returns how many
// documents it added, updated or deleted. Failures of single files go to
// OnError; the error is ctx's, or one that stopped the whole sync (a
// missing index).
func (w *FolderWatcher) Sync(ctx context.Context) (int, error) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	return w.syncAll(ctx)
}

// callback calls f, one callback at a time.
func (w *FolderWatcher) callback(f func()) {
	w.cbMu.Lock()
	defer w.cbMu.Unlock()
	f()
}

func (w *FolderWatcher) reportSync(uri string, action SyncAction) {
	if w.cfg.OnSync != nil {
		w.callback(func() { w.cfg.OnSync(uri, action) })
	}
}

func (w *FolderWatcher) reportSkip(path string, reason error) {
	if w.cfg.OnSkip != nil {
		w.callback(func() { w.cfg.OnSkip(path, reason) })
	}
}

func (w *FolderWatcher) reportError(err error, uri string) {
	if w.cfg.OnError != nil {
		w.callback(func() { w.cfg.OnError(err, uri) })
	}
}
