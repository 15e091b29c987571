package storagehttp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// Errors of the storage, matched with errors.Is.
var (
	// ErrReadOnly is the error of every write: the storage only reads.
	// It wraps errors.ErrUnsupported.
	ErrReadOnly = fmt.Errorf("storagehttp: the storage is read-only: %w", errors.ErrUnsupported)
	// ErrChanged is the error of a read of a file that the host replaced
	// or removed since it was opened. It wraps fs.ErrNotExist: the version
	// read is gone.
	ErrChanged = fmt.Errorf("the file changed on the host since it was opened: %w", fs.ErrNotExist)
	// ErrRangeIgnored is the error of a range read of a file larger than
	// Options.MaxFileSize from a host that answers Range requests with the
	// whole file.
	ErrRangeIgnored = errors.New("storagehttp: the host ignores Range requests")
	// ErrBadResponse is the error of an answer that breaks HTTP's rules
	// for the request: a body longer or shorter than the range asked for,
	// a Content-Range other than the one asked for.
	ErrBadResponse = errors.New("storagehttp: the host's answer does not match the request")
	// ErrTooLarge is the error of a file larger than Options.MaxFileSize
	// read whole.
	ErrTooLarge = errors.New("storagehttp: the file is larger than the storage reads whole")
	// ErrRedirect is the error of a redirect to an origin that
	// Options.AllowOrigins does not name.
	ErrRedirect = errors.New("storagehttp: redirect to another origin refused")
	// ErrStatus is wrapped by the error of an answer with a status outside
	// 2xx (404 and 410 wrap fs.ErrNotExist instead).
	ErrStatus = errors.New("storagehttp: unexpected HTTP status")
)

// Options configure a Storage. The zero value of each field is its
// default.
type Options struct {
	// Header is added to every request (an Authorization header, say).
	Header map[string][]string
	// AllowOrigins are the origins ("https://cdn.example.com") that
	// redirects may lead to besides the base URL's.
	AllowOrigins []string
	// RequestTimeout bounds each request, body included; one that runs
	// out is retried (default 30 s).
	RequestTimeout time.Duration
	// Retries is how many times a request that failed to connect, timed
	// out, or was answered 5xx or 429 is sent again (default 3; negative:
	// never).
	Retries int
	// RetryBackoff is the wait before the first retry, doubled before each
	// next one, with jitter (default 200 ms).
	RetryBackoff time.Duration
	// MaxFileSize is the largest file read whole: by ReadFile, or from a
	// host that ignores Range (default 256 MiB).
	MaxFileSize int64
	// FirstRead is how many bytes OpenFileRange reads from the start of
	// the file with the request that learns its size (default 64 KiB).
	FirstRead int
	// CoalesceGap is the largest gap between two parts of one batch read
	// that are fetched with one request (default 4 KiB: a few rows of
	// embeddings, far fewer bytes than a round trip could carry).
	CoalesceGap int64
	// MaxRequestBytes is the most bytes a coalesced request asks for
	// (default 4 MiB).
	MaxRequestBytes int64
	// MaxRanges is the most ranges one request asks for (a multi-range
	// request, answered multipart/byteranges), so that the rows a query
	// re-ranks cost one round trip (default 100; 1: one range a request).
	// A host that answers several ranges with the whole file of more than
	// MaxFileSize bytes, or with 416, is asked one range a request from
	// then on.
	MaxRanges int
	// Parallel is the most requests a batch read sends at once (default 16).
	Parallel int
	// CacheBytes bounds the parts kept for later reads (default 64 MiB;
	// negative: none).
	CacheBytes int64
}

// Storage reads files from an HTTP host; see the package documentation.
type Storage struct {
	base    *url.URL // ends with "/"
	origin  string
	allowed map[string]bool // origins redirects may lead to besides origin
	client  transport
	header  header
	opts    Options
	cache   *partCache
	metrics metrics
	noMulti atomic.Bool  // the host answers no multi-range request
	opens   atomic.Int64 // files opened without a validator, to name their parts in the cache
}

var (
	_ core.FileStorage     = (*Storage)(nil)
	_ core.FileRangeReader = (*Storage)(nil)
	_ core.FileVersioner   = (*Storage)(nil)
)

// New returns a storage reading the files below baseURL, an http or https
// URL (a missing trailing "/" is added: the URL names a folder).
func New(baseURL string, opts *Options) (*Storage, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("storagehttp: base URL: %w", core.ErrInvalidArgument)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("storagehttp: base URL %s://%s: want http:// or https:// and a host: %w", u.Scheme, u.Host, core.ErrInvalidArgument)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		u.RawPath = ""
	}
	u.Fragment = ""
	var o Options
	if opts != nil {
		o = *opts
	}
	o.RequestTimeout = or(o.RequestTimeout, 30*time.Second)
	o.RetryBackoff = or(o.RetryBackoff, 200*time.Millisecond)
	o.MaxFileSize = or(o.MaxFileSize, 256<<20)
	o.FirstRead = or(o.FirstRead, 64<<10)
	o.CoalesceGap = or(o.CoalesceGap, 4<<10)
	o.MaxRequestBytes = or(o.MaxRequestBytes, 4<<20)
	o.Parallel = or(o.Parallel, 16)
	o.MaxRanges = or(o.MaxRanges, 100)
	o.CacheBytes = or(o.CacheBytes, 64<<20)
	if o.Retries == 0 {
		o.Retries = 3
	}
	o.Retries = max(o.Retries, 0)
	if o.MaxFileSize < 0 || o.FirstRead < 0 || o.CoalesceGap < 0 || o.MaxRequestBytes < 0 || o.Parallel < 0 || o.MaxRanges < 0 || o.RequestTimeout < 0 || o.RetryBackoff < 0 {
		return nil, fmt.Errorf("storagehttp: negative option: %w", core.ErrInvalidArgument)
	}
	allowed := map[string]bool{}
	for _, a := range o.AllowOrigins {
		au, err := url.Parse(a)
		if err != nil || au.Host == "" {
			return nil, fmt.Errorf("storagehttp: AllowOrigins %q: want scheme://host[:port]: %w", a, core.ErrInvalidArgument)
		}
		allowed[originOf(au)] = true
	}
	s := &Storage{base: u, origin: originOf(u), allowed: allowed, header: header(o.Header).clone(), opts: o, cache: newPartCache(o.CacheBytes)}
	s.client = newTransport(s.redirectAllowed)
	return s, nil
}

// redirectAllowed reports whether a redirect may lead to u: an error
// wrapping ErrRedirect when u is of another origin that AllowOrigins does
// not name.
func (s *Storage) redirectAllowed(u *url.URL) error {
	if o := originOf(u); o != s.origin && !s.allowed[o] {
		return fmt.Errorf("%w: to %s", ErrRedirect, o)
	}
	return nil
}

// or is v, or def when v is zero.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// originOf is u's scheme, host and port.
func originOf(u *url.URL) string {
	host, port := u.Hostname(), u.Port()
	scheme := strings.ToLower(u.Scheme)
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + strings.ToLower(host) + ":" + port
}

// BaseURL is the URL paths are relative to, without its query.
func (s *Storage) BaseURL() string { return redact(s.base) }

// Stats are the storage's counts since it was made.
type Stats struct {
	Requests  int64 // requests sent, retries included
	Bytes     int64 // body bytes received
	CacheHits int64 // parts served from the cache
}

// Stats returns the storage's counts since it was made.
func (s *Storage) Stats() Stats { return s.metrics.stats() }

// url is the URL of path p below the base; a path leaving the base is
// refused.
func (s *Storage) url(p string) (*url.URL, string, error) {
	if pathutil.IsAbsolute(p) || escapes(p) || strings.ContainsRune(p, 0) {
		return nil, "", fmt.Errorf("storagehttp: path %q leaves the base URL: %w", p, core.ErrInvalidArgument)
	}
	clean := pathutil.Normalize(p)
	u := *s.base
	u.Path = s.base.Path + clean
	u.RawPath = ""
	return &u, clean, nil
}

// escapes reports whether the relative path p climbs above its start
// with "..".
func escapes(p string) bool {
	depth := 0
	for seg := range strings.FieldsFuncSeq(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		switch seg {
		case ".":
		case "..":
			if depth--; depth < 0 {
				return true
			}
		default:
			depth++
		}
	}
	return false
}

// redact is u without its query and user information.
func redact(u *url.URL) string {
	c := *u
	c.RawQuery, c.User, c.Fragment = "", nil, ""
	return c.String()
}

// close closes the body and releases the request.
func (r *response) close() {
	r.Body.Close()
	r.done()
}

// do sends a request for u, retrying failed connections, timeouts, 5xx
// and 429 with backoff. The answer's status is the caller's to read; the
// caller closes it.
func (s *Storage) do(ctx context.Context, method string, u *url.URL, h header) (*response, error) {
	wait := s.opts.RetryBackoff
	all := s.header.clone()
	for k, v := range h {
		all[k] = v
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
		s.metrics.requests.Add(1)
		resp, err := s.client.roundTrip(rctx, method, u, all)
		retry := false
		switch {
		case err != nil && ctx.Err() != nil:
			cancel()
			return nil, ctx.Err()
		case err != nil && errors.Is(err, ErrRedirect):
			cancel()
			return nil, fmt.Errorf("storagehttp: %s %s: %w", method, redact(u), err)
		case err != nil:
			retry = true
		case resp.StatusCode >= 500 || resp.StatusCode == statusTooManyRequests:
			retry = true
			err = statusError(method, u, resp.StatusCode)
			resp.done = cancel
			resp.close()
		default:
			resp.done = cancel
			return resp, nil
		}
		cancel()
		if !retry || attempt >= s.opts.Retries {
			return nil, fmt.Errorf("storagehttp: %s %s: %w", method, redact(u), err)
		}
		jittered := wait/2 + rand.N(wait/2+1)
		t := time.NewTimer(jittered)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait *= 2
	}
}

// statusError is the error of an answer with status code.
func statusError(method string, u *url.URL, code int) error {
	if code == statusNotFound || code == statusGone {
		return fmt.Errorf("storagehttp: %s %s: %s: %w", method, redact(u), statusText(code), fs.ErrNotExist)
	}
	return fmt.Errorf("%w: %s %s: %s", ErrStatus, method, redact(u), statusText(code))
}

// readBody reads the whole body of r, at most limit bytes: more is
// ErrTooLarge. want, when not negative, is the length the body must have.
func (s *Storage) readBody(ctx context.Context, r *response, u *url.URL, limit int64, want int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, fmt.Errorf("%w: %s is %d bytes, over %d", ErrTooLarge, redact(u), r.ContentLength, limit)
	}
	capacity := int64(0)
	if r.ContentLength > 0 {
		capacity = r.ContentLength
	}
	buf := make([]byte, 0, capacity)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		s.metrics.bytes.Add(int64(n))
		if int64(len(buf)) > limit {
			return nil, fmt.Errorf("%w: %s is over %d bytes", ErrTooLarge, redact(u), limit)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("storagehttp: GET %s: %w", redact(u), err)
		}
	}
	if want >= 0 && int64(len(buf)) != want {
		return nil, fmt.Errorf("%w: %s: %d bytes, want %d", ErrBadResponse, redact(u), len(buf), want)
	}
	return buf, nil
}

// ReadFile returns the file's bytes: one GET, at most MaxFileSize bytes.
func (s *Storage) ReadFile(ctx context.Context, filePath string) ([]byte, error) {
	u, _, err := s.url(filePath)
	if err != nil {
		return nil, err
	}
	r, err := s.do(ctx, "GET", u, nil)
	if err != nil {
		return nil, err
	}
	defer r.close()
	if r.StatusCode != statusOK {
		return nil, statusError("GET", u, r.StatusCode)
	}
	if isFolder(r, u) {
		return nil, fmt.Errorf("storagehttp: GET %s: a folder, not a file", redact(u))
	}
	return s.readBody(ctx, r, u, s.opts.MaxFileSize, -1)
}

// isFolder reports whether the host answered a request for u with a
// folder: it redirected to the same path with a trailing "/", as file
// servers do for a folder's listing or index page.
func isFolder(r *response, u *url.URL) bool {
	final := r.URL.Path
	return final != u.Path && final == u.Path+"/"
}

// head asks for the headers of path p; a missing path is fs.ErrNotExist.
func (s *Storage) head(ctx context.Context, p string) (header, *url.URL, string, error) {
	u, clean, err := s.url(p)
	if err != nil {
		return nil, nil, "", err
	}
	r, err := s.do(ctx, "HEAD", u, header{"Cache-Control": {"no-cache"}})
	if err != nil {
		return nil, nil, "", err
	}
	defer r.close()
	if r.StatusCode < 200 || r.StatusCode > 299 {
		return nil, nil, "", statusError("HEAD", u, r.StatusCode)
	}
	h := r.Header.clone()
	if r.ContentLength >= 0 {
		h.Set("Content-Length", strconv.FormatInt(r.ContentLength, 10))
	}
	return h, u, clean, nil
}

// PathExists reports whether the host answers a HEAD request for path
// with 2xx (false for 404 and 410).
func (s *Storage) PathExists(ctx context.Context, p string) (bool, error) {
	_, _, _, err := s.head(ctx, p)
	if errors.Is(err, fs.ErrNotExist) && ctx.Err() == nil {
		return false, nil
	}
	return err == nil, err
}

// GetDetails describes path as a file (a static host does not tell
// folders apart); a missing path is fs.ErrNotExist.
func (s *Storage) GetDetails(ctx context.Context, p string) (core.FileDetails, error) {
	_, _, clean, err := s.head(ctx, p)
	if err != nil {
		return core.FileDetails{}, err
	}
	return core.FileDetails{Name: pathutil.Basename(clean), Path: clean, FileType: core.GetFileType(clean)}, nil
}

// FileVersion is the file's ETag, else its Last-Modified, with its
// length, as a HEAD request tells them. From a host that sends neither, it
// is a hash of the file's bytes when it is at most versionByContent bytes
// (an index's manifest is a few hundred), else its length alone.
func (s *Storage) FileVersion(ctx context.Context, filePath string) (string, error) {
	h, _, _, err := s.head(ctx, filePath)
	if err != nil {
		return "", err
	}
	length := h.Get("Content-Length")
	if v := validatorOf(h); v != "" {
		return v + "/" + length, nil
	}
	if n, err := strconv.ParseInt(length, 10, 64); err == nil && n > versionByContent {
		return "length/" + length, nil
	}
	b, err := s.ReadFile(ctx, filePath)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "sha256/" + hex.EncodeToString(sum[:]), nil
}

// versionByContent is the largest file whose version, from a host that
// sends no validator, is a hash of its bytes.
const versionByContent = 1 << 20

// validatorOf is the ETag of an answer, else "@" and its Last-Modified,
// else "".
func validatorOf(h header) string {
	if e := h.Get("ETag"); e != "" {
		return e
	}
	if lm := h.Get("Last-Modified"); lm != "" {
		return "@" + lm
	}
	return ""
}

// ListFiles fails: a static host cannot list a folder.
func (s *Storage) ListFiles(ctx context.Context, folderPath string, _ core.ListFilesFilter) ([]core.FileDetails, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("storagehttp: list %q: an HTTP host cannot list folders: %w", folderPath, errors.ErrUnsupported)
}

// CreateFile fails with ErrReadOnly.
func (s *Storage) CreateFile(ctx context.Context, p string, _ []byte) error {
	return s.refuse(ctx, "create", p)
}

// UpsertFile fails with ErrReadOnly.
func (s *Storage) UpsertFile(ctx context.Context, p string, _ []byte) error {
	return s.refuse(ctx, "write", p)
}

// DeleteFile fails with ErrReadOnly.
func (s *Storage) DeleteFile(ctx context.Context, p string) error {
	return s.refuse(ctx, "delete", p)
}

// CreateFolder fails with ErrReadOnly.
func (s *Storage) CreateFolder(ctx context.Context, p string) error {
	return s.refuse(ctx, "create folder", p)
}

// DeleteFolder fails with ErrReadOnly.
func (s *Storage) DeleteFolder(ctx context.Context, p string) error {
	return s.refuse(ctx, "delete folder", p)
}

// refuse is the error of a write.
func (s *Storage) refuse(ctx context.Context, what, p string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("%s %q: %w", what, p, ErrReadOnly)
}
