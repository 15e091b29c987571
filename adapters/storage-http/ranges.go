package storagehttp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/foliovec/folio/core"
)

var _ core.RangeBatcher = (*rangeFile)(nil)

// rangeFile is a file opened for range reads: one version of it, named by
// the validator its first read saw.
type rangeFile struct {
	s       *Storage
	u       *url.URL
	key     string // the cache's name of this version of the file
	size    int64
	etag    string // "" when the host sent none
	lastMod string // "" when the host sent none

	// whole is the file read whole, from a host that ignores Range.
	whole atomic.Pointer[[]byte]
}

// OpenFileRange opens a file for range reads: a GET of its first
// FirstRead bytes that also tells its size and validator.
func (s *Storage) OpenFileRange(ctx context.Context, filePath string) (core.RangeFile, error) {
	u, clean, err := s.url(filePath)
	if err != nil {
		return nil, err
	}
	first := int64(max(s.opts.FirstRead, 1))
	r, err := s.do(ctx, "GET", u, header{"Range": {rangeHeader(0, first)}})
	if err != nil {
		return nil, err
	}
	defer r.close()
	f := &rangeFile{s: s, u: u, etag: r.Header.Get("ETag"), lastMod: r.Header.Get("Last-Modified")}
	v := validatorOf(r.Header)
	f.key = clean + "\x00" + v
	if v == "" {
		// Nothing tells this version from the next: its parts are its own.
		f.key += "#" + strconv.FormatInt(s.opens.Add(1), 10)
	}
	switch r.StatusCode {
	case statusPartialContent:
		lo, hi, total, err := parseContentRange(r.Header.Get("Content-Range"))
		if err != nil || lo != 0 || hi != min(first, total) {
			return nil, fmt.Errorf("%w: GET %s: Content-Range %q for the first %d bytes", ErrBadResponse, redact(u), r.Header.Get("Content-Range"), first)
		}
		f.size = total
		b, err := s.readExact(ctx, r, u, hi-lo)
		if err != nil {
			return nil, err
		}
		s.cache.put(f.key, 0, b)
	case statusOK:
		b, err := f.readWhole(ctx, r)
		if err != nil {
			return nil, err
		}
		f.size = int64(len(b))
		f.whole.Store(&b)
	case statusRangeNotSatisfiable:
		// An empty file: no byte 0 to send.
		if _, _, total, err := parseContentRange(r.Header.Get("Content-Range")); err != nil || total != 0 {
			return nil, fmt.Errorf("%w: GET %s: 416 for the first byte of a file of %q", ErrBadResponse, redact(u), r.Header.Get("Content-Range"))
		}
		empty := []byte{}
		f.whole.Store(&empty)
	default:
		return nil, statusError("GET", u, r.StatusCode)
	}
	return f, nil
}

// readWhole reads the whole file from an answer of 200 to a range request
// (a host that ignores Range), when the file is at most MaxFileSize bytes;
// the caller keeps it for the file's later reads.
func (f *rangeFile) readWhole(ctx context.Context, r *response) ([]byte, error) {
	b, err := f.s.readBody(ctx, r, f.u, f.s.opts.MaxFileSize, -1)
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("%w: GET %s: answered 200 with the whole file, over %d bytes (Options.MaxFileSize)", ErrRangeIgnored, redact(f.u), f.s.opts.MaxFileSize)
	}
	return b, err
}

// rangeHeader is the Range header of bytes lo to hi-1.
func rangeHeader(lo, hi int64) string { return "bytes=" + span(lo, hi) }

// span is bytes lo to hi-1 as a Range header writes them.
func span(lo, hi int64) string {
	return strconv.FormatInt(lo, 10) + "-" + strconv.FormatInt(hi-1, 10)
}

// parseContentRange parses "bytes lo-last/total" into lo, hi (last+1) and
// total, or "bytes */total" into 0, 0 and total. An unknown total ("*")
// is an error: the storage needs the file's size.
func parseContentRange(v string) (lo, hi, total int64, err error) {
	bad := func() (int64, int64, int64, error) {
		return 0, 0, 0, fmt.Errorf("%w: Content-Range %q", ErrBadResponse, v)
	}
	rest, ok := strings.CutPrefix(v, "bytes ")
	if !ok {
		return bad()
	}
	bytes, size, ok := strings.Cut(rest, "/")
	if !ok {
		return bad()
	}
	total, err = strconv.ParseInt(size, 10, 64)
	if err != nil || total < 0 {
		return bad()
	}
	if bytes == "*" {
		return 0, 0, total, nil
	}
	first, last, ok := strings.Cut(bytes, "-")
	if !ok {
		return bad()
	}
	lo, err1 := strconv.ParseInt(first, 10, 64)
	end, err2 := strconv.ParseInt(last, 10, 64)
	if err1 != nil || err2 != nil || lo < 0 || end < lo || end >= total {
		return bad()
	}
	return lo, end + 1, total, nil
}

// readExact reads a body of exactly n bytes: shorter or longer is
// ErrBadResponse.
func (s *Storage) readExact(ctx context.Context, r *response, u *url.URL, n int64) ([]byte, error) {
	if r.ContentLength >= 0 && r.ContentLength != n {
		return nil, fmt.Errorf("%w: GET %s: a body of %d bytes for a range of %d", ErrBadResponse, redact(u), r.ContentLength, n)
	}
	b := make([]byte, n)
	got, err := io.ReadFull(r.Body, b)
	s.metrics.bytes.Add(int64(got))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: GET %s: the body ended after %d of %d bytes", ErrBadResponse, redact(u), got, n)
		}
		return nil, fmt.Errorf("storagehttp: GET %s: %w", redact(u), err)
	}
	var more [1]byte
	if m, _ := r.Body.Read(more[:]); m > 0 {
		return nil, fmt.Errorf("%w: GET %s: the body is longer than the %d bytes asked for", ErrBadResponse, redact(u), n)
	}
	return b, nil
}

// Size is the file's length in bytes.
func (f *rangeFile) Size() int64 { return f.size }

// Close releases the file.
func (f *rangeFile) Close() error {
	f.whole.Store(nil)
	return nil
}

// ReadRange fills p with the file's bytes from off.
func (f *rangeFile) ReadRange(ctx context.Context, p []byte, off int64) error {
	return f.ReadRanges(ctx, []core.FilePart{{P: p, Off: off}})
}

// ReadRanges fills every part: from the cache where it holds one, the rest
// with requests that each cover parts lying closer than CoalesceGap, up to
// Parallel at once.
func (f *rangeFile) ReadRanges(ctx context.Context, parts []core.FilePart) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, p := range parts {
		if p.Off < 0 {
			return fmt.Errorf("storagehttp: read at %d: %w", p.Off, core.ErrInvalidArgument)
		}
		if p.Off+int64(len(p.P)) > f.size {
			return fmt.Errorf("storagehttp: read %d bytes at %d of %s (%d bytes): %w", len(p.P), p.Off, redact(f.u), f.size, io.ErrUnexpectedEOF)
		}
	}
	if w := f.whole.Load(); w != nil {
		for _, p := range parts {
			copy(p.P, (*w)[p.Off:])
		}
		return nil
	}
	var missing []core.FilePart
	for _, p := range parts {
		if len(p.P) > 0 && !f.s.cache.get(f.key, p.Off, p.P) {
			missing = append(missing, p)
		}
	}
	f.s.metrics.hits.Add(int64(len(parts) - len(missing)))
	if len(missing) == 0 {
		return nil
	}
	batches := f.s.batch(f.s.coalesce(missing))
	errs := make([]error, len(batches))
	sem := make(chan struct{}, f.s.opts.Parallel)
	var wg sync.WaitGroup
	for i, b := range batches {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if len(b) == 1 {
				errs[i] = f.fetch(ctx, b[0])
			} else {
				errs[i] = f.fetchMany(ctx, b)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// group is the parts one request fetches: bytes lo to hi-1.
type group struct {
	lo, hi int64
	parts  []core.FilePart
}

// coalesce groups parts (none empty) into requests: sorted by offset, a
// part joins the group before it when the gap between them is at most
// CoalesceGap and the group stays within MaxRequestBytes.
func (s *Storage) coalesce(parts []core.FilePart) []group {
	slices.SortFunc(parts, func(a, b core.FilePart) int { return cmp.Compare(a.Off, b.Off) })
	var groups []group
	for _, p := range parts {
		end := p.Off + int64(len(p.P))
		if n := len(groups); n > 0 {
			g := &groups[n-1]
			if p.Off-g.hi <= s.opts.CoalesceGap && max(g.hi, end)-g.lo <= s.opts.MaxRequestBytes {
				g.hi = max(g.hi, end)
				g.parts = append(g.parts, p)
				continue
			}
		}
		groups = append(groups, group{lo: p.Off, hi: end, parts: []core.FilePart{p}})
	}
	return groups
}

// batch packs groups into the requests that fetch them: up to MaxRanges
// groups and MaxRequestBytes bytes in one multi-range request, one group
// a request where the host does not answer those.
func (s *Storage) batch(groups []group) [][]group {
	if s.opts.MaxRanges <= 1 || s.noMulti.Load() {
		out := make([][]group, len(groups))
		for i, g := range groups {
			out[i] = []group{g}
		}
		return out
	}
	var out [][]group
	var bytes int64
	for _, g := range groups {
		n := len(out)
		if n > 0 && len(out[n-1]) < s.opts.MaxRanges && bytes+(g.hi-g.lo) <= s.opts.MaxRequestBytes {
			out[n-1] = append(out[n-1], g)
			bytes += g.hi - g.lo
			continue
		}
		out = append(out, []group{g})
		bytes = g.hi - g.lo
	}
	return out
}

// conditions are the headers that make a request fail unless the file is
// still the version opened: If-Match with a strong ETag, else
// If-Unmodified-Since.
func (f *rangeFile) conditions(h header) header {
	switch {
	case f.etag != "" && !strings.HasPrefix(f.etag, "W/"):
		h.Set("If-Match", f.etag)
	case f.lastMod != "":
		h.Set("If-Unmodified-Since", f.lastMod)
	}
	return h
}

// fetchMany reads several groups with one multi-range request. The host
// may answer with the parts (multipart/byteranges), with one range that
// covers some of them, or with the whole file; groups it leaves out are
// fetched one by one, as they are from then on when it answers none.
func (f *rangeFile) fetchMany(ctx context.Context, gs []group) error {
	spans := make([]string, len(gs))
	for i, g := range gs {
		spans[i] = span(g.lo, g.hi)
	}
	r, err := f.s.do(ctx, "GET", f.u, f.conditions(header{"Range": {"bytes=" + strings.Join(spans, ",")}}))
	if err != nil {
		return err
	}
	defer r.close()
	filled := make([]bool, len(gs))
	switch r.StatusCode {
	case statusPartialContent:
		if err := f.sameVersion(r.Header); err != nil {
			return err
		}
		mediaType, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if mediaType == "multipart/byteranges" && params["boundary"] != "" {
			if err := f.readParts(ctx, multipart.NewReader(r.Body, params["boundary"]), gs, filled); err != nil {
				return err
			}
			break
		}
		lo, hi, total, err := parseContentRange(r.Header.Get("Content-Range"))
		if err != nil {
			return fmt.Errorf("GET %s: %w", redact(f.u), err)
		}
		if err := f.sameSize(total); err != nil {
			return err
		}
		b, err := f.s.readExact(ctx, r, f.u, hi-lo)
		if err != nil {
			return err
		}
		f.fill(gs, filled, lo, b)
	case statusOK:
		if r.ContentLength > f.s.opts.MaxFileSize {
			f.s.noMulti.Store(true) // a host that answers several ranges with the whole file
			break
		}
		whole, err := f.wholeAnswer(ctx, r)
		if err != nil {
			return err
		}
		f.fill(gs, filled, 0, whole)
	case statusPreconditionFailed, statusNotFound, statusGone:
		return fmt.Errorf("storagehttp: GET %s: %s: %w", redact(f.u), statusText(r.StatusCode), ErrChanged)
	case statusRangeNotSatisfiable:
		f.s.noMulti.Store(true) // a host that refuses several ranges; one at a time may still do
	default:
		return statusError("GET", f.u, r.StatusCode)
	}
	for i, g := range gs {
		if !filled[i] {
			if err := f.fetch(ctx, g); err != nil {
				return err
			}
		}
	}
	return nil
}

// readParts reads the parts of a multipart/byteranges answer into the
// groups they hold.
func (f *rangeFile) readParts(ctx context.Context, mr *multipart.Reader, gs []group, filled []bool) error {
	for {
		part, err := mr.NextRawPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%w: GET %s: multipart answer: %v", ErrBadResponse, redact(f.u), err)
		}
		lo, hi, total, err := parseContentRange(part.Header.Get("Content-Range"))
		if err != nil {
			return fmt.Errorf("GET %s: %w", redact(f.u), err)
		}
		if err := f.sameSize(total); err != nil {
			return err
		}
		if hi-lo > f.s.opts.MaxRequestBytes {
			return fmt.Errorf("%w: GET %s: a part of %d bytes", ErrBadResponse, redact(f.u), hi-lo)
		}
		b := make([]byte, hi-lo)
		n, err := io.ReadFull(part, b)
		f.s.metrics.bytes.Add(int64(n))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%w: GET %s: a part ended after %d of %d bytes", ErrBadResponse, redact(f.u), n, hi-lo)
		}
		var more [1]byte
		if m, _ := part.Read(more[:]); m > 0 {
			return fmt.Errorf("%w: GET %s: a part is longer than its Content-Range", ErrBadResponse, redact(f.u))
		}
		f.fill(gs, filled, lo, b)
	}
}

// fill copies into the groups that b, the file's bytes from lo, holds
// whole, and marks them filled.
func (f *rangeFile) fill(gs []group, filled []bool, lo int64, b []byte) {
	hi := lo + int64(len(b))
	for i, g := range gs {
		if filled[i] || g.lo < lo || g.hi > hi {
			continue
		}
		part := b[g.lo-lo : g.hi-lo]
		f.s.cache.put(f.key, g.lo, part)
		for _, p := range g.parts {
			copy(p.P, part[p.Off-g.lo:])
		}
		filled[i] = true
	}
}

// fetch reads group g with one request under the file's validator, and
// fills its parts.
func (f *rangeFile) fetch(ctx context.Context, g group) error {
	h := f.conditions(header{"Range": {rangeHeader(g.lo, g.hi)}})
	r, err := f.s.do(ctx, "GET", f.u, h)
	if err != nil {
		return err
	}
	defer r.close()
	var b []byte
	switch r.StatusCode {
	case statusPartialContent:
		if err := f.sameVersion(r.Header); err != nil {
			return err
		}
		lo, hi, total, err := parseContentRange(r.Header.Get("Content-Range"))
		if err != nil {
			return fmt.Errorf("GET %s: %w", redact(f.u), err)
		}
		if err := f.sameSize(total); err != nil {
			return err
		}
		if lo != g.lo || hi != g.hi {
			return fmt.Errorf("%w: GET %s: Content-Range %q for bytes %d-%d", ErrBadResponse, redact(f.u), r.Header.Get("Content-Range"), g.lo, g.hi-1)
		}
		if b, err = f.s.readExact(ctx, r, f.u, g.hi-g.lo); err != nil {
			return err
		}
		f.s.cache.put(f.key, g.lo, b)
	case statusOK:
		whole, err := f.wholeAnswer(ctx, r)
		if err != nil {
			return err
		}
		b = whole[g.lo:g.hi]
	case statusPreconditionFailed, statusNotFound, statusGone, statusRangeNotSatisfiable:
		return fmt.Errorf("storagehttp: GET %s: %s: %w", redact(f.u), statusText(r.StatusCode), ErrChanged)
	default:
		return statusError("GET", f.u, r.StatusCode)
	}
	for _, p := range g.parts {
		copy(p.P, b[p.Off-g.lo:])
	}
	return nil
}

// wholeAnswer reads an answer of 200 to a range request: the whole file,
// which must be the version opened.
func (f *rangeFile) wholeAnswer(ctx context.Context, r *response) ([]byte, error) {
	if err := f.sameVersion(r.Header); err != nil {
		return nil, err
	}
	whole, err := f.readWhole(ctx, r)
	if err == nil {
		err = f.sameSize(int64(len(whole)))
	}
	if err != nil {
		return nil, err
	}
	f.whole.Store(&whole)
	return whole, nil
}

// sameSize checks that a file's length in an answer is the one it was
// opened at.
func (f *rangeFile) sameSize(n int64) error {
	if n != f.size {
		return fmt.Errorf("storagehttp: GET %s: %d bytes, opened at %d: %w", redact(f.u), n, f.size, ErrChanged)
	}
	return nil
}

// sameVersion checks that an answer is of the version the file was
// opened at, by the validators both carry.
func (f *rangeFile) sameVersion(h header) error {
	if e := h.Get("ETag"); f.etag != "" && e != "" && e != f.etag {
		return fmt.Errorf("storagehttp: GET %s: ETag %s, opened at %s: %w", redact(f.u), e, f.etag, ErrChanged)
	}
	if lm := h.Get("Last-Modified"); f.etag == "" && f.lastMod != "" && lm != "" && lm != f.lastMod {
		return fmt.Errorf("storagehttp: GET %s: Last-Modified %s, opened at %s: %w", redact(f.u), lm, f.lastMod, ErrChanged)
	}
	return nil
}
