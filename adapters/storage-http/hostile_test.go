package storagehttp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	storagehttp "github.com/foliovec/folio/adapters/storage-http"
	"github.com/foliovec/folio/core"
)

// content is n bytes that differ from one offset to the next.
func content(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// put writes a file of the host's folder.
func (h *host) put(t testing.TB, name string, b []byte) {
	t.Helper()
	p := filepath.Join(h.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil { // a new inode: a new ETag
		t.Fatal(err)
	}
}

// readAt reads n bytes at off through f.
func readAt(t testing.TB, f core.RangeFile, off, n int) ([]byte, error) {
	t.Helper()
	p := make([]byte, n)
	err := f.ReadRange(t.Context(), p, int64(off))
	return p, err
}

func TestRangesAndCache(t *testing.T) {
	h := newHost(t)
	want := content(1 << 20)
	h.put(t, "f.bin", want)
	s := h.storage(t, &storagehttp.Options{FirstRead: 1024})
	f, err := s.OpenFileRange(t.Context(), "f.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != int64(len(want)) {
		t.Fatalf("Size = %d, want %d", f.Size(), len(want))
	}
	if got, err := readAt(t, f, 10, 100); err != nil || !bytes.Equal(got, want[10:110]) {
		t.Fatalf("a read within the first read: %v, equal %v", err, bytes.Equal(got, want[10:110]))
	}
	if n := s.Stats().Requests; n != 1 {
		t.Errorf("the open and a read of its first bytes sent %d requests, want 1", n)
	}
	// 100 parts of 100 bytes, 1,000 bytes apart: under the 4 KiB gap, one
	// request; and each part read again from the cache.
	rb := f.(core.RangeBatcher)
	parts := make([]core.FilePart, 100)
	for i := range parts {
		parts[i] = core.FilePart{P: make([]byte, 100), Off: int64(200_000 + (99-i)*1000)}
	}
	before := s.Stats()
	if err := rb.ReadRanges(t.Context(), parts); err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if !bytes.Equal(p.P, want[p.Off:p.Off+100]) {
			t.Fatalf("part at %d holds other bytes than the file's", p.Off)
		}
	}
	after := s.Stats()
	if n := after.Requests - before.Requests; n != 1 {
		t.Errorf("100 parts within the coalescing gap: %d requests, want 1", n)
	}
	if n := after.Bytes - before.Bytes; n != 99*1000+100 {
		t.Errorf("100 parts within the coalescing gap read %d bytes, want %d (first to last)", n, 99*1000+100)
	}
	if err := rb.ReadRanges(t.Context(), parts); err != nil {
		t.Fatal(err)
	}
	if n := s.Stats().Requests - after.Requests; n != 0 {
		t.Errorf("parts read before sent %d requests, want 0 (the cache)", n)
	}
	// Parts far apart: one multi-range request, or a request each.
	for _, tc := range []struct {
		maxRanges int
		requests  int64
	}{{0, 1}, {1, 3}} {
		s := h.storage(t, &storagehttp.Options{FirstRead: 1024, MaxRanges: tc.maxRanges})
		f, err := s.OpenFileRange(t.Context(), "f.bin")
		if err != nil {
			t.Fatal(err)
		}
		far := []core.FilePart{{P: make([]byte, 10), Off: 900_000}, {P: make([]byte, 10), Off: 500_000}, {P: make([]byte, 10), Off: 700_000}}
		before := s.Stats()
		if err := f.(core.RangeBatcher).ReadRanges(t.Context(), far); err != nil {
			t.Fatal(err)
		}
		for _, p := range far {
			if !bytes.Equal(p.P, want[p.Off:p.Off+10]) {
				t.Fatalf("MaxRanges %d: part at %d holds other bytes than the file's", tc.maxRanges, p.Off)
			}
		}
		if n := s.Stats().Requests - before.Requests; n != tc.requests {
			t.Errorf("MaxRanges %d: 3 parts 200 KB apart: %d requests, want %d", tc.maxRanges, n, tc.requests)
		}
	}
	if _, err := readAt(t, f, len(want)-5, 10); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a read past the end: %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestHostIgnoringRange(t *testing.T) {
	h := newHost(t)
	want := content(200_000)
	h.put(t, "f.bin", want)
	h.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		r.Header.Del("Range")
		r.Header.Del("If-Match")
		return false
	})
	s := h.storage(t, nil)
	f, err := s.OpenFileRange(t.Context(), "f.bin")
	if err != nil {
		t.Fatal(err)
	}
	if f.Size() != int64(len(want)) {
		t.Fatalf("Size = %d, want %d", f.Size(), len(want))
	}
	requests := s.Stats().Requests
	for _, off := range []int{0, 70_000, 199_990} {
		if got, err := readAt(t, f, off, 10); err != nil || !bytes.Equal(got, want[off:off+10]) {
			t.Fatalf("read at %d: %v", off, err)
		}
	}
	if n := s.Stats().Requests - requests; n != 0 {
		t.Errorf("a file read whole by its open sent %d more requests, want 0", n)
	}
	small := h.storage(t, &storagehttp.Options{MaxFileSize: 100_000})
	if _, err := small.OpenFileRange(t.Context(), "f.bin"); !errors.Is(err, storagehttp.ErrRangeIgnored) {
		t.Errorf("a file over MaxFileSize from a host that ignores Range: %v, want ErrRangeIgnored", err)
	}
	if _, err := small.ReadFile(t.Context(), "f.bin"); !errors.Is(err, storagehttp.ErrTooLarge) {
		t.Errorf("ReadFile of a file over MaxFileSize: %v, want ErrTooLarge", err)
	}
}

func TestFileReplacedBetweenReads(t *testing.T) {
	h := newHost(t)
	h.put(t, "f.bin", content(300_000))
	for _, tc := range []struct {
		name string
		hook func(w http.ResponseWriter, r *http.Request) bool
	}{
		{"the host keeps If-Match", nil},
		{"the host ignores If-Match", func(w http.ResponseWriter, r *http.Request) bool {
			r.Header.Del("If-Match")
			return false
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.put(t, "f.bin", content(300_000))
			h.setHook(tc.hook)
			s := h.storage(t, &storagehttp.Options{FirstRead: 1024})
			f, err := s.OpenFileRange(t.Context(), "f.bin")
			if err != nil {
				t.Fatal(err)
			}
			other := bytes.Repeat([]byte{9}, 300_000)
			h.put(t, "f.bin", other)
			_, err = readAt(t, f, 100_000, 10)
			if !errors.Is(err, storagehttp.ErrChanged) || !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("a read after the file was replaced: %v, want ErrChanged (fs.ErrNotExist)", err)
			}
			g, err := s.OpenFileRange(t.Context(), "f.bin")
			if err != nil {
				t.Fatal(err)
			}
			if got, err := readAt(t, g, 100_000, 10); err != nil || !bytes.Equal(got, other[:10]) {
				t.Fatalf("the file opened again: %v", err)
			}
		})
	}
	h.setHook(nil)
	s := h.storage(t, &storagehttp.Options{FirstRead: 1024})
	f, err := s.OpenFileRange(t.Context(), "f.bin")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(h.dir, "f.bin")); err != nil {
		t.Fatal(err)
	}
	if _, err := readAt(t, f, 100_000, 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a read after the file was removed: %v, want fs.ErrNotExist", err)
	}
	if _, err := s.ReadFile(t.Context(), "f.bin"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a removed file: %v, want fs.ErrNotExist", err)
	}
}

func TestBodyLongerThanAsked(t *testing.T) {
	h := newHost(t)
	h.put(t, "f.bin", content(100_000))
	for _, tc := range []struct {
		name   string
		length bool
	}{{"with Content-Length", true}, {"chunked", false}} {
		t.Run(tc.name, func(t *testing.T) {
			h.setHook(func(w http.ResponseWriter, r *http.Request) bool {
				if r.Header.Get("If-Match") == "" {
					return false // the open
				}
				// bytes=lo-hi answered as asked, with 100 bytes more.
				var lo, hi int64
				if _, err := fmtSscanf(r.Header.Get("Range"), &lo, &hi); err != nil {
					t.Error(err)
					return false
				}
				body := content(100_000)[lo:min(hi+101, 100_000)]
				w.Header().Set("Content-Range", "bytes "+strconv.FormatInt(lo, 10)+"-"+strconv.FormatInt(hi, 10)+"/100000")
				if tc.length {
					w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				}
				w.WriteHeader(http.StatusPartialContent)
				w.Write(body[:len(body)/2])
				w.(http.Flusher).Flush()
				w.Write(body[len(body)/2:])
				return true
			})
			s := h.storage(t, &storagehttp.Options{FirstRead: 1024})
			f, err := s.OpenFileRange(t.Context(), "f.bin")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := readAt(t, f, 50_000, 1000); !errors.Is(err, storagehttp.ErrBadResponse) {
				t.Errorf("a body longer than the range: %v, want ErrBadResponse", err)
			}
		})
	}
}

func TestStallingHost(t *testing.T) {
	h := newHost(t)
	h.put(t, "f.bin", content(10))
	h.stall(t)
	s := h.storage(t, &storagehttp.Options{RequestTimeout: 50 * time.Millisecond, RetryBackoff: time.Millisecond, Retries: 100})
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if _, err := s.ReadFile(ctx, "f.bin"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a read from a host that stalls: %v, want the context's deadline", err)
	}
	before := h.requests.Load()
	few := h.storage(t, &storagehttp.Options{RequestTimeout: 20 * time.Millisecond, RetryBackoff: time.Millisecond, Retries: 2})
	_, err := few.ReadFile(t.Context(), "f.bin")
	if err == nil || errors.Is(err, context.DeadlineExceeded) && t.Context().Err() != nil {
		t.Errorf("a host that stalls every request: %v, want the last request's timeout", err)
	}
	if n := h.requests.Load() - before; n != 3 {
		t.Errorf("a request that timed out was sent %d times, want 3 (2 retries)", n)
	}
}

func TestRetries(t *testing.T) {
	h := newHost(t)
	h.put(t, "f.bin", content(10))
	var failures atomic.Int64
	failures.Store(2)
	h.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		if failures.Add(-1) >= 0 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	s := h.storage(t, &storagehttp.Options{RetryBackoff: time.Millisecond})
	if got, err := s.ReadFile(t.Context(), "f.bin"); err != nil || !bytes.Equal(got, content(10)) {
		t.Fatalf("a read after two 503s: %v", err)
	}
	if n := s.Stats().Requests; n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	h.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		http.Error(w, "broken", http.StatusInternalServerError)
		return true
	})
	s = h.storage(t, &storagehttp.Options{RetryBackoff: time.Millisecond, Retries: 2})
	if _, err := s.ReadFile(t.Context(), "f.bin"); !errors.Is(err, storagehttp.ErrStatus) {
		t.Errorf("a host that answers 500: %v, want ErrStatus", err)
	}
	if n := s.Stats().Requests; n != 3 {
		t.Errorf("%d requests, want 3 (2 retries)", n)
	}
	h.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		http.Error(w, "no", http.StatusForbidden)
		return true
	})
	s = h.storage(t, &storagehttp.Options{RetryBackoff: time.Millisecond})
	if _, err := s.ReadFile(t.Context(), "f.bin"); !errors.Is(err, storagehttp.ErrStatus) || s.Stats().Requests != 1 {
		t.Errorf("a 403: %v after %d requests, want ErrStatus after 1", err, s.Stats().Requests)
	}
}

func TestRedirectToAnotherOrigin(t *testing.T) {
	h := newHost(t)
	other := newHost(t)
	other.put(t, "f.bin", content(10))
	h.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		http.Redirect(w, r, other.srv.URL+r.URL.Path+"?token=secret", http.StatusFound)
		return true
	})
	s := h.storage(t, nil)
	_, err := s.ReadFile(t.Context(), "f.bin")
	if !errors.Is(err, storagehttp.ErrRedirect) {
		t.Fatalf("a redirect to another origin: %v, want ErrRedirect", err)
	}
	if bytes.Contains([]byte(err.Error()), []byte("secret")) {
		t.Errorf("the error shows a URL's query: %v", err)
	}
	if other.requests.Load() != 0 {
		t.Errorf("the other origin was asked %d times, want 0", other.requests.Load())
	}
	allowed := h.storage(t, &storagehttp.Options{AllowOrigins: []string{other.srv.URL}})
	if got, err := allowed.ReadFile(t.Context(), "f.bin"); err != nil || !bytes.Equal(got, content(10)) {
		t.Errorf("a redirect to an allowed origin: %v", err)
	}
}

func TestWritesRefused(t *testing.T) {
	h := newHost(t)
	h.put(t, "f.bin", content(10))
	s := h.storage(t, nil)
	ctx := t.Context()
	for name, err := range map[string]error{
		"CreateFile":   s.CreateFile(ctx, "g.bin", []byte("x")),
		"UpsertFile":   s.UpsertFile(ctx, "f.bin", []byte("x")),
		"DeleteFile":   s.DeleteFile(ctx, "f.bin"),
		"CreateFolder": s.CreateFolder(ctx, "d"),
		"DeleteFolder": s.DeleteFolder(ctx, ""),
	} {
		if !errors.Is(err, storagehttp.ErrReadOnly) || !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("%s: %v, want ErrReadOnly (errors.ErrUnsupported)", name, err)
		}
	}
	if _, err := s.ListFiles(ctx, "", core.ListAll); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("ListFiles: %v, want errors.ErrUnsupported", err)
	}
	if got, err := os.ReadFile(filepath.Join(h.dir, "f.bin")); err != nil || !bytes.Equal(got, content(10)) {
		t.Errorf("the host's file after refused writes: %v", err)
	}
	if h.requests.Load() != 0 {
		t.Errorf("refused writes sent %d requests, want 0", h.requests.Load())
	}
	d, err := s.GetDetails(ctx, "f.bin")
	if err != nil || d.Name != "f.bin" || d.Path != "f.bin" || d.IsFolder {
		t.Errorf("GetDetails = %+v, %v", d, err)
	}
}

func TestNew(t *testing.T) {
	for _, bad := range []string{"ftp://host/x", "/local/folder", "https://", "http://[::1"} {
		if _, err := storagehttp.New(bad, nil); !errors.Is(err, core.ErrInvalidArgument) {
			t.Errorf("New(%q): %v, want core.ErrInvalidArgument", bad, err)
		}
	}
	s, err := storagehttp.New("https://user:pw@example.com/site/index?sig=abc", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.BaseURL(); got != "https://example.com/site/index/" {
		t.Errorf("BaseURL = %q", got)
	}
	if _, err := storagehttp.New("https://example.com/", &storagehttp.Options{AllowOrigins: []string{"nohost"}}); !errors.Is(err, core.ErrInvalidArgument) {
		t.Errorf("AllowOrigins without a host: %v", err)
	}
}

// fmtSscanf parses a Range header "bytes=lo-hi".
func fmtSscanf(v string, lo, hi *int64) (int, error) {
	return fmt.Sscanf(v, "bytes=%d-%d", lo, hi)
}

// TestHostsAnsweringManyRanges: hosts that answer a multi-range request
// otherwise than with its parts still give every part's bytes.
func TestHostsAnsweringManyRanges(t *testing.T) {
	want := content(1 << 20)
	for _, tc := range []struct {
		name string
		hook func(w http.ResponseWriter, r *http.Request) bool
		// requests of the first batch read and of the second
		first, second int64
	}{
		{"the parts", nil, 1, 1},
		{"the whole file when asked for several ranges", func(w http.ResponseWriter, r *http.Request) bool {
			if strings.Contains(r.Header.Get("Range"), ",") {
				r.Header.Del("Range")
			}
			return false
		}, 4, 3},
		{"416 when asked for several ranges", func(w http.ResponseWriter, r *http.Request) bool {
			if strings.Contains(r.Header.Get("Range"), ",") {
				w.Header().Set("Content-Range", "bytes */1048576")
				w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
				return true
			}
			return false
		}, 4, 3},
		{"the first range alone", func(w http.ResponseWriter, r *http.Request) bool {
			if first, _, ok := strings.Cut(r.Header.Get("Range"), ","); ok {
				r.Header.Set("Range", first)
			}
			return false
		}, 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t)
			h.put(t, "f.bin", want)
			h.setHook(tc.hook)
			s := h.storage(t, &storagehttp.Options{FirstRead: 1024, MaxFileSize: 100_000})
			f, err := s.OpenFileRange(t.Context(), "f.bin")
			if err != nil {
				t.Fatal(err)
			}
			for round, wantRequests := range []int64{tc.first, tc.second} {
				base := int64(100_000 + round*400_000)
				parts := []core.FilePart{{P: make([]byte, 10), Off: base + 200_000}, {P: make([]byte, 10), Off: base}, {P: make([]byte, 10), Off: base + 100_000}}
				before := s.Stats().Requests
				if err := f.(core.RangeBatcher).ReadRanges(t.Context(), parts); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				for _, p := range parts {
					if !bytes.Equal(p.P, want[p.Off:p.Off+10]) {
						t.Fatalf("round %d: part at %d holds other bytes than the file's", round, p.Off)
					}
				}
				if n := s.Stats().Requests - before; n != wantRequests {
					t.Errorf("round %d: %d requests, want %d", round, n, wantRequests)
				}
			}
		})
	}
}

// noValidators hides the ETag and Last-Modified of every answer.
type noValidators struct{ http.ResponseWriter }

func (w noValidators) WriteHeader(code int) {
	w.Header().Del("ETag")
	w.Header().Del("Last-Modified")
	w.ResponseWriter.WriteHeader(code)
}

func (w noValidators) Write(b []byte) (int, error) {
	w.Header().Del("ETag")
	w.Header().Del("Last-Modified")
	return w.ResponseWriter.Write(b)
}

// TestHostWithoutValidators: a host that sends neither ETag nor
// Last-Modified still serves an index; a file's version is then a hash of
// its bytes (small files) or its length.
func TestHostWithoutValidators(t *testing.T) {
	h := newHost(t)
	local := writeIndex(t, h, "ix", 1, 3000)
	files := http.FileServer(http.Dir(h.dir))
	h.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		files.ServeHTTP(noValidators{w}, r)
		return true
	})
	s := h.storage(t, &storagehttp.Options{FirstRead: 1024})
	ctx := t.Context()
	h.put(t, "small.txt", []byte("version one"))
	v1, err := s.FileVersion(ctx, "small.txt")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.FileVersion(ctx, "small.txt"); err != nil || again != v1 {
		t.Errorf("FileVersion of an unchanged file: %q then %q, %v", v1, again, err)
	}
	h.put(t, "small.txt", []byte("version two"))
	if v2, err := s.FileVersion(ctx, "small.txt"); err != nil || v2 == v1 {
		t.Errorf("FileVersion after the file changed (same length): %q then %q, %v", v1, v2, err)
	}
	answersAsLocal(t, webIndex(t, s, "ix"), local, 1, 3, 2000)
}
