package storagetest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// brokenStorage is a confined core.MemoryStorage with one rule broken on purpose (bug;
// "" breaks none), to show the suite notices: see the bugs table in
// storagetest_test.go.
type brokenStorage struct {
	inner confinedStorage
	bug   string

	mu     sync.Mutex
	shared map[string][]byte // "writes alias…": the caller's slices; "reads share…": the slices handed out
}

func newBroken(inner confinedStorage, bug string) *brokenStorage {
	return &brokenStorage{inner: inner, bug: bug, shared: map[string][]byte{}}
}

var (
	_ core.FileStorage   = (*brokenStorage)(nil)
	_ core.GroupWriter   = (*brokenStorage)(nil)
	_ core.FolderLocker  = (*brokenStorage)(nil)
	_ core.FileVersioner = (*brokenStorage)(nil)

	_ core.FileStreamWriter = (*brokenStorage)(nil)
	_ core.FileMapper       = (*brokenStorage)(nil)
	_ core.FileRangeReader  = (*brokenStorage)(nil)
)

// OpenFileRange opens a copy of the file's bytes; with "range is a byte
// late" its reads start a byte past where they should, with "range past
// the end reads zeros" such a read fills zeros instead of failing.
func (s *brokenStorage) OpenFileRange(ctx context.Context, p string) (core.RangeFile, error) {
	b, err := s.ReadFile(ctx, p)
	if err != nil {
		return nil, err
	}
	return brokenRange{b: b, bug: s.bug}, nil
}

type brokenRange struct {
	b   []byte
	bug string
}

func (r brokenRange) Size() int64 { return int64(len(r.b)) }

func (r brokenRange) ReadRange(ctx context.Context, p []byte, off int64) error {
	if err := ctx.Err(); err != nil && r.bug != "ignores context" {
		return err
	}
	if r.bug == "range is a byte late" && len(p) > 0 && off+int64(len(p)) < int64(len(r.b)) {
		off++
	}
	if off < 0 || off > int64(len(r.b)) || int64(len(p)) > int64(len(r.b))-off {
		if r.bug == "range past the end reads zeros" {
			clear(p)
			return nil
		}
		return io.ErrUnexpectedEOF
	}
	copy(p, r.b[off:])
	return nil
}

// ReadRanges reads each part as ReadRange does; with "batch skips its
// last part" it leaves the last part of several unread.
func (r brokenRange) ReadRanges(ctx context.Context, parts []core.FilePart) error {
	if r.bug == "batch skips its last part" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	for _, p := range parts {
		if err := r.ReadRange(ctx, p.P, p.Off); err != nil {
			return err
		}
	}
	return nil
}

func (brokenRange) Close() error { return nil }

// MapFile "maps" a copy of the file's bytes; with "map follows the file"
// the mapping reads the file anew each time, as a mapping of a file
// rewritten in place would.
func (s *brokenStorage) MapFile(ctx context.Context, p string) (core.MappedFile, error) {
	b, err := s.ReadFile(ctx, p)
	if err != nil {
		return nil, err
	}
	switch s.bug {
	case "map drops the last byte":
		if len(b) > 0 {
			b = b[:len(b)-1]
		}
	case "map follows the file":
		return followingMap{s: s, p: p}, nil
	case "releasing pages zeroes them":
		return zeroingMap{fixedMap(b)}, nil
	}
	return fixedMap(b), nil
}

// zeroingMap's ReleasePages zeroes the bytes, as MADV_DONTNEED does to
// private anonymous memory (never to a shared file mapping).
type zeroingMap struct{ fixedMap }

func (m zeroingMap) ReleasePages() error {
	clear(m.fixedMap)
	return nil
}

type fixedMap []byte

func (m fixedMap) Bytes() []byte { return m }
func (fixedMap) Close() error    { return nil }

type followingMap struct {
	s *brokenStorage
	p string
}

func (m followingMap) Bytes() []byte {
	b, _ := m.s.ReadFile(context.Background(), m.p)
	return b
}
func (followingMap) Close() error { return nil }

// coldBuffer gathers a stream write, noting a ColdFile hint.
type coldBuffer struct {
	bytes.Buffer
	cold bool
}

func (b *coldBuffer) ColdFile() { b.cold = true }

// UpsertFileFrom gathers what write writes and upserts it.
func (s *brokenStorage) UpsertFileFrom(ctx context.Context, p string, write func(w io.Writer) error) error {
	var buf coldBuffer
	err := write(&buf)
	switch {
	case s.bug == "cold stream write drops its last block" && err == nil && buf.cold && buf.Len() > 4096:
		buf.Truncate(buf.Len() - 4096)
	case s.bug == "stream write keeps a failed write" && err != nil:
		_ = s.UpsertFile(ctx, p, buf.Bytes())
		return err
	case err != nil:
		return err
	case s.bug == "stream write drops the last byte" && buf.Len() > 0:
		buf.Truncate(buf.Len() - 1)
	}
	return s.UpsertFile(ctx, p, buf.Bytes())
}

// in returns the context and path the inner storage gets.
func (s *brokenStorage) in(ctx context.Context, p string) (context.Context, string) {
	switch s.bug {
	case "ignores context":
		ctx = context.Background()
	case "raw paths":
		p = strings.NewReplacer("//", "/~/", "/./", "/~/").Replace(strings.TrimSuffix(p, "/"))
	case "escapes its root":
		p = strings.TrimPrefix(path.Clean("/"+p), "/") // ".." past the top stays at the top
	}
	return ctx, p
}

func (s *brokenStorage) keep(p string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shared[pathutil.Normalize(p)] = b
}

func (s *brokenStorage) forget(p string) { s.keep(p, nil) }

func (s *brokenStorage) CreateFile(ctx context.Context, p string, content []byte) error {
	ictx, ip := s.in(ctx, p)
	switch s.bug {
	case "create overwrites":
		return s.UpsertFile(ctx, p, content)
	case "create is not exclusive":
		if ok, err := s.inner.PathExists(ictx, ip); err != nil || ok {
			return errors.Join(err, fs.ErrExist)
		}
		time.Sleep(time.Millisecond)
		return s.UpsertFile(ctx, p, content)
	case "writes need no parent":
		_ = s.inner.CreateFolder(ictx, pathutil.Dirname(ip))
	}
	if err := s.inner.CreateFile(ictx, ip, content); err != nil {
		return err
	}
	s.written(p, content)
	return nil
}

// written records what the "alias" bugs hand back on later reads.
func (s *brokenStorage) written(p string, content []byte) {
	if s.bug == "writes alias the caller's bytes" {
		s.keep(p, content)
	} else {
		s.forget(p)
	}
}

func (s *brokenStorage) UpsertFile(ctx context.Context, p string, content []byte) error {
	ictx, ip := s.in(ctx, p)
	switch s.bug {
	case "writes need no parent":
		_ = s.inner.CreateFolder(ictx, pathutil.Dirname(ip))
	case "upsert tears":
		if len(content) > 1 {
			if err := s.inner.UpsertFile(ictx, ip, content[:len(content)/2]); err != nil {
				return err
			}
			time.Sleep(200 * time.Microsecond)
		}
	}
	if err := s.inner.UpsertFile(ictx, ip, content); err != nil {
		return err
	}
	s.written(p, content)
	return nil
}

func (s *brokenStorage) WriteFiles(ctx context.Context, files []core.FileWrite) error {
	if s.bug == "group write drops the last file" && len(files) > 1 {
		files = files[:len(files)-1]
	}
	ictx, _ := s.in(ctx, "")
	inner := make([]core.FileWrite, len(files))
	for i, f := range files {
		_, ip := s.in(ctx, f.Path)
		inner[i] = core.FileWrite{Path: ip, Content: f.Content}
	}
	if err := s.inner.WriteFiles(ictx, inner); err != nil {
		return err
	}
	for _, f := range files {
		if s.bug == "group write aliases the caller's bytes" {
			s.keep(f.Path, f.Content)
		} else {
			s.forget(f.Path)
		}
	}
	return nil
}

func (s *brokenStorage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	ictx, ip := s.in(ctx, p)
	b, err := s.inner.ReadFile(ictx, ip)
	if s.bug == "read of missing is nil, nil" && errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := pathutil.Normalize(p)
	if kept := s.shared[key]; kept != nil {
		if s.bug == "reads share the stored bytes" {
			return kept, nil
		}
		return slices.Clone(kept), nil
	}
	if s.bug == "reads share the stored bytes" {
		s.shared[key] = b
	}
	return b, nil
}

func (s *brokenStorage) DeleteFile(ctx context.Context, p string) error {
	ictx, ip := s.in(ctx, p)
	if s.bug == "delete of missing fails" {
		if ok, err := s.inner.PathExists(ictx, ip); err == nil && !ok {
			return fmt.Errorf("delete %q: %w", p, fs.ErrNotExist)
		}
	}
	s.forget(p)
	return s.inner.DeleteFile(ictx, ip)
}

func (s *brokenStorage) PathExists(ctx context.Context, p string) (bool, error) {
	ictx, ip := s.in(ctx, p)
	return s.inner.PathExists(ictx, ip)
}

func (s *brokenStorage) CreateFolder(ctx context.Context, p string) error {
	ictx, ip := s.in(ctx, p)
	if s.bug == "folders get no parents" {
		if ok, err := s.inner.PathExists(ictx, pathutil.Dirname(ip)); err == nil && !ok {
			return fmt.Errorf("create folder %q: parent: %w", p, fs.ErrNotExist)
		}
	}
	return s.inner.CreateFolder(ictx, ip)
}

func (s *brokenStorage) DeleteFolder(ctx context.Context, p string) error {
	ictx, ip := s.in(ctx, p)
	switch s.bug {
	case "delete folder is shallow":
		files, err := s.inner.ListFiles(ictx, ip, core.ListFilesOnly)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		for _, f := range files {
			if err := s.inner.DeleteFile(ictx, f.Path); err != nil {
				return err
			}
		}
		return err
	case "delete folder matches name prefixes":
		parent, name := pathutil.Dirname(ip), pathutil.Basename(ip)
		siblings, _ := s.inner.ListFiles(ictx, parent, core.ListAll)
		for _, d := range siblings {
			if strings.HasPrefix(d.Name, name) && d.Name != name {
				if d.IsFolder {
					_ = s.inner.DeleteFolder(ictx, d.Path)
				} else {
					_ = s.inner.DeleteFile(ictx, d.Path)
				}
			}
		}
	}
	return s.inner.DeleteFolder(ictx, ip)
}

func (s *brokenStorage) GetDetails(ctx context.Context, p string) (core.FileDetails, error) {
	if s.bug == "details panic" {
		panic("broken: details panic")
	}
	ictx, ip := s.in(ctx, p)
	d, err := s.inner.GetDetails(ictx, ip)
	return s.detail(d), err
}

func (s *brokenStorage) detail(d core.FileDetails) core.FileDetails {
	if s.bug == "files have no type" && !d.IsFolder {
		d.FileType = ""
	}
	return d
}

func (s *brokenStorage) ListFiles(ctx context.Context, p string, filter core.ListFilesFilter) ([]core.FileDetails, error) {
	ictx, ip := s.in(ctx, p)
	if s.bug == "list ignores the filter" {
		filter = core.ListAll
	}
	list, err := s.inner.ListFiles(ictx, ip, filter)
	for i := range list {
		list[i] = s.detail(list[i])
	}
	if s.bug == "list is not sorted" {
		slices.Reverse(list)
	}
	return list, err
}

func (s *brokenStorage) LockFolder(ctx context.Context, p string) (func(), error) {
	ictx, ip := s.in(ctx, p)
	switch s.bug {
	case "lock is not exclusive":
		if _, err := s.inner.GetDetails(ictx, ip); err != nil {
			return nil, err
		}
		return func() {}, nil
	case "lock is one for all folders":
		ip = ""
	}
	return s.inner.LockFolder(ictx, ip)
}

func (s *brokenStorage) FileVersion(ctx context.Context, p string) (string, error) {
	ictx, ip := s.in(ctx, p)
	v, err := s.inner.FileVersion(ictx, ip)
	if err == nil && s.bug == "version is the content" {
		b, _ := s.inner.ReadFile(ictx, ip)
		v = string(b)
	}
	return v, err
}
