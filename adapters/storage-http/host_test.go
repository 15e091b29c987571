package storagehttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	storagehttp "github.com/foliovec/folio/adapters/storage-http"
	"github.com/foliovec/folio/core"
)

// host is a static file server on 127.0.0.1 over a folder, as a web host
// serves a site: Range, If-Match and If-Unmodified-Since as net/http's
// file server answers them, and an ETag naming the file's inode, time and
// size (a file replaced is a new inode), as nginx's names time and size.
// A test bends its rules with hook.
type host struct {
	dir      string
	srv      *httptest.Server
	requests atomic.Int64

	mu   sync.Mutex
	hook func(w http.ResponseWriter, r *http.Request) bool // true: answered
}

func newHost(t testing.TB) *host {
	t.Helper()
	h := &host{dir: t.TempDir()}
	files := http.FileServer(http.Dir(h.dir))
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.requests.Add(1)
		h.mu.Lock()
		hook := h.hook
		h.mu.Unlock()
		if hook != nil && hook(w, r) {
			return
		}
		if fi, err := os.Stat(filepath.Join(h.dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/")))); err == nil && fi.Mode().IsRegular() {
			w.Header().Set("ETag", fmt.Sprintf(`"%x-%x-%x"`, inode(fi), fi.ModTime().UnixNano(), fi.Size()))
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// setHook sets the hook that may answer a request before the file server.
func (h *host) setHook(hook func(w http.ResponseWriter, r *http.Request) bool) {
	h.mu.Lock()
	h.hook = hook
	h.mu.Unlock()
}

// stall makes the host answer no request until the test ends (or the
// request's own context does).
func (h *host) stall(t testing.TB) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	h.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-r.Context().Done():
		case <-release:
		}
		return true
	})
}

// storage is an HTTP storage of the host's files.
func (h *host) storage(t testing.TB, opts *storagehttp.Options) *storagehttp.Storage {
	t.Helper()
	s, err := storagehttp.New(h.srv.URL+"/", opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// local is a file-system storage of the host's folder, through which
// tests write what the host serves.
func (h *host) local(t testing.TB) *storagefs.LocalFileStorage {
	t.Helper()
	s, err := storagefs.New(&storagefs.Options{Root: h.dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// served is the storage the conformance suite checks: writes go to the
// host's folder on disk, and every read the HTTP storage can make goes
// over HTTP (what a static host cannot tell, a folder's listing and
// details, comes from the disk).
type served struct {
	core.FileStorage // the disk, for writes, listings and details
	web              *storagehttp.Storage
}

func (s served) ReadFile(ctx context.Context, p string) ([]byte, error) {
	return s.web.ReadFile(ctx, p)
}

func (s served) PathExists(ctx context.Context, p string) (bool, error) {
	return s.web.PathExists(ctx, p)
}

func (s served) OpenFileRange(ctx context.Context, p string) (core.RangeFile, error) {
	return s.web.OpenFileRange(ctx, p)
}

func (s served) FileVersion(ctx context.Context, p string) (string, error) {
	return s.web.FileVersion(ctx, p)
}
