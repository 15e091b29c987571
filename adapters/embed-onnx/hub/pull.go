package hub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// maxRedirects bounds the redirects of one request, as browsers and
// net/http do.
const maxRedirects = 10

// pull is one Pull's state: the files fetched so far and the commit they
// come from.
type pull struct {
	hub      *Hub
	ref      Ref
	folder   string
	revision string // the commit once the first file named it
	man      manifest
}

// meta is what the hub says of one file.
type meta struct {
	size     int64  // -1 when unknown
	checksum string // "sha256:<hex>", "git-sha1:<hex>" or ""
	commit   string
}

// fetch puts the first of w's paths that the hub has in place.
func (p *pull) fetch(ctx context.Context, w want) error {
	for _, path := range w.paths {
		if isFile(filepath.Join(p.folder, filepath.FromSlash(path))) {
			p.hub.report(Progress{Status: "done", File: path})
			return nil
		}
	}
	var tried []string
	for _, path := range w.paths {
		p.hub.report(Progress{Status: "initiate", File: path})
		m, err := p.head(ctx, path)
		if errors.Is(err, errNoFile) {
			tried = append(tried, path)
			continue
		}
		if err != nil {
			return err
		}
		if p.man.Commit == "" && m.commit != "" {
			p.man.Commit, p.revision = m.commit, m.commit
		}
		if err := p.download(ctx, path, m); err != nil {
			return err
		}
		p.man.Files = append(p.man.Files, File{Path: path, Size: m.size, Checksum: m.checksum})
		// Recorded file by file, so a pull cut short keeps what it checked.
		return p.writeManifest()
	}
	if w.required {
		return fmt.Errorf("hub: model %s at %s has none of %s: %w", p.ref, p.ref.rev(), strings.Join(tried, ", "), ErrNotFound)
	}
	return nil
}

// errNoFile: the hub has no such file (the model exists).
var errNoFile = errors.New("no such file")

func (p *pull) resolveURL(path string) string {
	return p.hub.endpoint + "/" + p.ref.ID + "/resolve/" + url.PathEscape(p.revision) + "/" + path
}

// head asks the hub for a file's size, checksum and commit, following
// the redirects of a renamed model but not those to a file host, whose
// answer the hub has already summed up in its X-Linked-* headers.
func (p *pull) head(ctx context.Context, path string) (meta, error) {
	ctx, cancel := context.WithTimeout(ctx, p.hub.stall)
	defer cancel()
	target := p.resolveURL(path)
	client := *p.hub.client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for hop := 0; ; hop++ {
		if hop > maxRedirects {
			return meta{}, fmt.Errorf("hub: model %s: %s: more than %d redirects (a redirect loop?)", p.ref, path, maxRedirects)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, target, nil)
		if err != nil {
			return meta{}, fmt.Errorf("hub: model %s: %w", p.ref, err)
		}
		p.authorize(req)
		resp, err := client.Do(req)
		if err != nil {
			return meta{}, fmt.Errorf("hub: model %s: %s: %w", p.ref, path, err)
		}
		resp.Body.Close()
		p.hub.logger.Debug("hub: head", "url", target, "status", resp.StatusCode)
		linked := resp.Header.Get("X-Linked-Etag") != "" || resp.Header.Get("X-Linked-Size") != ""
		switch {
		case resp.StatusCode == http.StatusOK || resp.StatusCode >= 300 && resp.StatusCode < 400 && linked:
			return metaOf(resp.Header), nil
		case resp.StatusCode >= 300 && resp.StatusCode < 400:
			loc, err := resp.Location()
			if err != nil {
				return meta{}, fmt.Errorf("hub: model %s: %s: HTTP %d without a location", p.ref, path, resp.StatusCode)
			}
			target = loc.String()
		case resp.StatusCode == http.StatusNotFound && resp.Header.Get("X-Error-Code") != "RepoNotFound" && resp.Header.Get("X-Error-Code") != "RepositoryNotFound":
			return meta{}, errNoFile
		case resp.StatusCode == http.StatusNotFound:
			return meta{}, fmt.Errorf("hub: model %s: no such model on %s: %w", p.ref, redact(p.hub.endpoint), ErrNotFound)
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			how := "set " + TokenEnv + " to a token with access"
			if p.hub.token != "" {
				how = "the token given has no access"
			}
			return meta{}, fmt.Errorf("hub: model %s: HTTP %d from %s (a gated, private or missing model): %s: %w",
				p.ref, resp.StatusCode, redact(p.hub.endpoint), how, ErrUnauthorized)
		default:
			return meta{}, fmt.Errorf("hub: model %s: %s: HTTP %d", p.ref, path, resp.StatusCode)
		}
	}
}

var hexSum = regexp.MustCompile(`^[0-9a-f]+$`)

// metaOf reads the hub's headers: X-Linked-* for files kept on a file
// host (large ones, whose ETag is their SHA-256), ETag and Content-Length
// otherwise (small ones, whose ETag is their git blob hash).
func metaOf(h http.Header) meta {
	m := meta{size: -1, commit: h.Get("X-Repo-Commit")}
	etag, size := h.Get("X-Linked-Etag"), h.Get("X-Linked-Size")
	if etag == "" {
		etag = h.Get("ETag")
	}
	if size == "" {
		size = h.Get("Content-Length")
	}
	if n, err := strconv.ParseInt(size, 10, 64); err == nil && n >= 0 {
		m.size = n
	}
	etag = strings.ToLower(strings.Trim(strings.TrimPrefix(etag, "W/"), `"`))
	switch {
	case len(etag) == 64 && hexSum.MatchString(etag):
		m.checksum = "sha256:" + etag
	case len(etag) == 40 && hexSum.MatchString(etag):
		m.checksum = "git-sha1:" + etag
	}
	return m
}

// authorize gives the hub's token to requests for the hub's host alone.
func (p *pull) authorize(req *http.Request) {
	if p.hub.token == "" {
		return
	}
	if u, err := url.Parse(p.hub.endpoint); err == nil && u.Host == req.URL.Host {
		req.Header.Set("Authorization", "Bearer "+p.hub.token)
	}
}

// partialPath is where path's bytes gather until they are checked: named
// by the checksum, so bytes of another version are never resumed.
func (p *pull) partialPath(path string, m meta) string {
	tag := strings.NewReplacer(":", "-").Replace(m.checksum)
	if tag == "" {
		tag = "unchecked"
	}
	if len(tag) > 24 {
		tag = tag[:24]
	}
	return filepath.Join(p.folder, ".incomplete", strings.ReplaceAll(path, "/", "--")+"."+tag)
}

// download fetches path into its partial file, resuming what an earlier
// pull left there, checks it and moves it into place.
func (p *pull) download(ctx context.Context, path string, m meta) error {
	if m.size > p.hub.maxSize {
		return fmt.Errorf("hub: model %s: %s is %d bytes, over the cap of %d: %w", p.ref, path, m.size, p.hub.maxSize, ErrTooLarge)
	}
	partial := p.partialPath(path, m)
	if err := os.MkdirAll(filepath.Dir(partial), 0o755); err != nil {
		return fmt.Errorf("hub: model %s: %w", p.ref, err)
	}
	ctx, cancel := context.WithTimeout(ctx, p.hub.timeout)
	defer cancel()
	if err := p.transfer(ctx, path, partial, m); err != nil {
		return err
	}
	if err := verify(partial, m); err != nil {
		os.Remove(partial)
		return fmt.Errorf("hub: model %s: %s from %s: %w", p.ref, path, redact(p.hub.endpoint), err)
	}
	final := filepath.Join(p.folder, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return fmt.Errorf("hub: model %s: %w", p.ref, err)
	}
	if err := os.Rename(partial, final); err != nil {
		return fmt.Errorf("hub: model %s: %w", p.ref, err)
	}
	syncDir(filepath.Dir(final))
	p.hub.report(Progress{Status: "done", File: path, Loaded: max(m.size, 0), Total: max(m.size, 0)})
	return nil
}

// transfer appends path's missing bytes to partial.
func (p *pull) transfer(ctx context.Context, path, partial string, m meta) error {
	f, err := os.OpenFile(partial, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("hub: model %s: %w", p.ref, err)
	}
	defer f.Close()
	have, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("hub: model %s: %w", p.ref, err)
	}
	if m.size >= 0 && have > m.size {
		if err := f.Truncate(0); err != nil {
			return err
		}
		have = 0
	}
	if m.size >= 0 && have == m.size {
		return f.Sync()
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stalled := fmt.Errorf("no data for %s: %w", p.hub.stall, context.DeadlineExceeded)
	watchdog := time.AfterFunc(p.hub.stall, func() { cancel(stalled) })
	defer watchdog.Stop()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.resolveURL(path), nil)
	if err != nil {
		return fmt.Errorf("hub: model %s: %w", p.ref, err)
	}
	p.authorize(req)
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	client := *p.hub.client
	client.CheckRedirect = func(next *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("more than %d redirects (a redirect loop?)", maxRedirects)
		}
		if next.URL.Host != via[0].URL.Host {
			// The token is the hub's: a file host's URL is signed.
			next.Header.Del("Authorization")
		}
		return nil
	}
	p.hub.report(Progress{Status: "download", File: path, Loaded: have, Total: max(m.size, 0)})
	resp, err := client.Do(req)
	if err != nil {
		return p.failed(ctx, path, err)
	}
	defer resp.Body.Close()
	p.hub.logger.Debug("hub: get", "url", req.URL.String(), "final", resp.Request.URL.Redacted(), "status", resp.StatusCode, "from", have)
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0 && strings.HasPrefix(resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-", have)):
	case resp.StatusCode == http.StatusOK:
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if err := f.Truncate(0); err != nil {
			return err
		}
		have = 0
	default:
		return fmt.Errorf("hub: model %s: %s: HTTP %d from %s", p.ref, path, resp.StatusCode, resp.Request.URL.Redacted())
	}
	limit := p.hub.maxSize
	if m.size >= 0 {
		limit = m.size
	}
	body := io.LimitReader(resp.Body, limit-have+1)
	buf := make([]byte, 256<<10)
	loaded, reported := have, have
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			watchdog.Reset(p.hub.stall)
			if _, err := f.Write(buf[:n]); err != nil {
				return fmt.Errorf("hub: model %s: %w", p.ref, err)
			}
			loaded += int64(n)
			if loaded > limit {
				if m.size >= 0 {
					return fmt.Errorf("hub: model %s: %s: the download is longer than the hub's %d bytes: %w", p.ref, path, m.size, ErrChecksum)
				}
				return fmt.Errorf("hub: model %s: %s is over the cap of %d bytes: %w", p.ref, path, p.hub.maxSize, ErrTooLarge)
			}
			if loaded-reported >= 1<<20 {
				p.hub.report(Progress{Status: "progress", File: path, Loaded: loaded, Total: max(m.size, 0)})
				reported = loaded
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return p.failed(ctx, path, fmt.Errorf("%w (%d of %d bytes kept for the next pull to resume)", rerr, loaded, m.size))
		}
	}
	if m.size >= 0 && loaded != m.size {
		return fmt.Errorf("hub: model %s: %s: the download ended at %d of %d bytes (kept for the next pull to resume): %w", p.ref, path, loaded, m.size, io.ErrUnexpectedEOF)
	}
	return f.Sync()
}

// failed words a transfer's error, naming the stall when that ended it.
func (p *pull) failed(ctx context.Context, path string, err error) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
		err = fmt.Errorf("%w: %w", cause, err)
	}
	return fmt.Errorf("hub: model %s: %s: %w", p.ref, path, err)
}

// verify checks the file against the hub's size and checksum.
func verify(path string, m meta) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if m.size >= 0 && info.Size() != m.size {
		return fmt.Errorf("%d bytes, the hub says %d: %w", info.Size(), m.size, ErrChecksum)
	}
	kind, want, _ := strings.Cut(m.checksum, ":")
	var h hash.Hash
	switch kind {
	case "sha256":
		h = sha256.New()
	case "git-sha1":
		h = sha1.New()
		fmt.Fprintf(h, "blob %d\x00", info.Size())
	default:
		return nil
	}
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s %s, the hub says %s: %w", kind, got, want, ErrChecksum)
	}
	return nil
}

// writeManifest records the pull, atomically.
func (p *pull) writeManifest() error {
	raw, err := json.MarshalIndent(p.man, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(p.folder, manifestName+".*")
	if err != nil {
		return fmt.Errorf("hub: model %s: %w", p.ref, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(raw, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(p.folder, manifestName)); err != nil {
		return fmt.Errorf("hub: model %s: %w", p.ref, err)
	}
	syncDir(p.folder)
	return nil
}

// syncDir makes a rename in dir durable where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
