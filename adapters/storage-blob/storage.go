package storageblob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// versionKey is the metadata key under which every write stores a fresh
// random token, so FileVersion changes even when the same bytes are
// written again.
const versionKey = "folio-version"

// parallelWrites is how many objects WriteFiles and DeleteFolder send at
// once.
const parallelWrites = 8

// Storage is a [core.FileStorage] over a bucket. Create one with [Open] or
// [New]; the zero value is not ready for use.
type Storage struct {
	bucket *blob.Bucket
	owned  bool // Close closes bucket

	mu      sync.Mutex
	folders map[string]bool // keys known to be folders
	files   map[string]bool // keys known to be files

	// creates serialises CreateFile calls of one key in this process (by
	// a hash of the key), for drivers whose conditional write is a check
	// before the write (file://) rather than the store's own.
	creates [64]sync.Mutex
}

var (
	_ core.FileStorage      = (*Storage)(nil)
	_ core.GroupWriter      = (*Storage)(nil)
	_ core.FileStreamWriter = (*Storage)(nil)
	_ core.FileVersioner    = (*Storage)(nil)
	_ core.FileRangeReader  = (*Storage)(nil)
)

var (
	errIsFolder    = errors.New("is a folder")
	errIsFile      = errors.New("is a file")
	errDeletesRoot = fmt.Errorf("cannot delete the top folder: %w", core.ErrInvalidArgument)
)

// Open opens the bucket a gocloud URL names — s3://bucket?region=…,
// gs://bucket, azblob://container, file:///dir, mem:// — and returns a
// storage over it. A "prefix" query parameter keeps every key under that
// prefix (end it with "/" to make it a folder). Credentials come from the
// environment, as the driver reads them. Close closes the bucket.
func Open(ctx context.Context, bucketURL string) (*Storage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := blob.OpenBucket(ctx, bucketURL)
	if err != nil {
		return nil, &openError{url: bucketURL, err: err}
	}
	s := New(b, "")
	s.owned = true
	return s, nil
}

// New returns a storage over a bucket the caller opened, with every key
// under prefix ("" for none; "indexes/" for a folder). Close leaves the
// bucket open.
func New(bucket *blob.Bucket, prefix string) *Storage {
	if prefix != "" {
		bucket = blob.PrefixedBucket(bucket, prefix)
	}
	return &Storage{bucket: bucket, folders: map[string]bool{}, files: map[string]bool{}}
}

// Close releases the bucket when Open opened it.
func (s *Storage) Close() error {
	if !s.owned {
		return nil
	}
	return s.bucket.Close()
}

// openError is a failure to open a bucket URL. Its message never shows
// the URL's query, which may carry options a log should not hold; the
// driver's error stays reachable with errors.Is and errors.As.
type openError struct {
	url string
	err error
}

func (e *openError) Error() string {
	msg := e.err.Error()
	base := e.url
	if i := strings.IndexByte(e.url, '?'); i >= 0 {
		base = e.url[:i]
		msg = strings.ReplaceAll(msg, e.url[i:], "?…")
	}
	return fmt.Sprintf("storageblob: open %s: %s", base, msg)
}

func (e *openError) Unwrap() error { return e.err }

// key checks ctx and returns the key of p: normalised, without a leading
// "/". The top folder is "".
func key(ctx context.Context, p string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return strings.TrimPrefix(pathutil.Normalize(p), "/"), nil
}

// parentOf returns the key of the folder holding k ("" for the top).
func parentOf(k string) string {
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		return k[:i]
	}
	return ""
}

// MarkerName is the name of the empty object CreateFolder writes in a
// folder that has nothing else in it yet, since an object store has no
// folders, only keys. ListFiles never lists it. Folders marked the way the
// S3 and Google Cloud consoles do it (an empty object whose key ends in
// "/") are folders too.
const MarkerName = ".folio-folder"

// below is the prefix of every key in folder k.
func below(k string) string { return k + "/" }

// marker is the key of folder k's marker object.
func marker(k string) string { return below(k) + MarkerName }

// pathError is err with the operation and path, ctx's error when ctx has
// ended, and a gocloud "not found" or "precondition failed" mapped to
// fs.ErrNotExist or fs.ErrExist.
func pathError(ctx context.Context, op, p string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	switch {
	case notFound(err):
		err = fmt.Errorf("%w (%v)", fs.ErrNotExist, err)
	case gcerrors.Code(err) == gcerrors.FailedPrecondition:
		err = fmt.Errorf("%w (%v)", fs.ErrExist, err)
	}
	return fmt.Errorf("storageblob: %s %q: %w", op, p, err)
}

// notFound reports whether err says no object is at a key. A file:// bucket
// reports a key below a file's key as "not a directory".
func notFound(err error) bool {
	return gcerrors.Code(err) == gcerrors.NotFound || errors.Is(err, syscall.ENOTDIR)
}

// remember records what k is known to be: a file, a folder, or (neither)
// gone.
func (s *Storage) remember(k string, file, folder bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	setOrDelete(s.files, k, file)
	setOrDelete(s.folders, k, folder)
	if file || folder {
		for p := parentOf(k); p != ""; p = parentOf(p) {
			s.folders[p] = true
		}
	}
}

func setOrDelete(m map[string]bool, k string, v bool) {
	if v {
		m[k] = true
	} else {
		delete(m, k)
	}
}

// forgetBelow drops what is known about k and every key below it.
func (s *Storage) forgetBelow(k string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range []map[string]bool{s.files, s.folders} {
		for known := range m {
			if known == k || strings.HasPrefix(known, k+"/") {
				delete(m, known)
			}
		}
	}
}

func (s *Storage) knownFolder(k string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.folders[k]
}

func (s *Storage) knownFile(k string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files[k]
}

// isFolder reports whether folder k exists: the top, or a key below it
// (its marker, or any object).
func (s *Storage) isFolder(ctx context.Context, k string) (bool, error) {
	if k == "" || s.knownFolder(k) {
		return true, nil
	}
	if s.knownFile(k) {
		return false, nil
	}
	page, _, err := s.bucket.ListPage(ctx, blob.FirstPageToken, 1, &blob.ListOptions{Prefix: below(k)})
	if err != nil {
		return false, err
	}
	if len(page) > 0 {
		s.remember(k, false, true)
		return true, nil
	}
	return false, nil
}

// isFile reports whether an object is at k.
func (s *Storage) isFile(ctx context.Context, k string) (bool, error) {
	if k == "" {
		return false, nil
	}
	if s.knownFile(k) {
		return true, nil
	}
	ok, err := s.bucket.Exists(ctx, k)
	if err != nil && notFound(err) {
		return false, nil
	}
	if ok {
		s.remember(k, true, false)
	}
	return ok, err
}

// checkWrite checks that a file may be written at k: its folder exists and
// no folder is at k.
func (s *Storage) checkWrite(ctx context.Context, k string) error {
	if k == "" {
		return errIsFolder
	}
	parent := parentOf(k)
	ok, err := s.isFolder(ctx, parent)
	if err != nil {
		return err
	}
	if !ok {
		if file, err := s.isFile(ctx, parent); err != nil {
			return err
		} else if file {
			return fmt.Errorf("parent %q %w", parent, errIsFile)
		}
		return fmt.Errorf("parent folder %q: %w", parent, fs.ErrNotExist)
	}
	// A key known to be a file is no folder: no request.
	if folder, err := s.isFolder(ctx, k); err != nil {
		return err
	} else if folder {
		return errIsFolder
	}
	return nil
}

// write puts content at k with a fresh version token.
func (s *Storage) write(ctx context.Context, k string, content []byte, ifNotExist bool) error {
	token := make([]byte, 12)
	_, _ = rand.Read(token)
	opts := &blob.WriterOptions{
		ContentType: "application/octet-stream",
		Metadata:    map[string]string{versionKey: hex.EncodeToString(token)},
		IfNotExist:  ifNotExist,
	}
	if err := s.bucket.WriteAll(ctx, k, content, opts); err != nil {
		return err
	}
	s.remember(k, true, false)
	return nil
}

// CreateFile writes a new file; an error wrapping fs.ErrExist if a file or
// folder is at filePath. The store's conditional write makes this hold
// between processes too: of several creators of one key, one succeeds.
func (s *Storage) CreateFile(ctx context.Context, filePath string, content []byte) error {
	k, err := key(ctx, filePath)
	if err != nil {
		return err
	}
	h := fnv.New32a()
	h.Write([]byte(k))
	lock := &s.creates[h.Sum32()%uint32(len(s.creates))]
	lock.Lock()
	defer lock.Unlock()
	if err := s.checkWrite(ctx, k); err != nil {
		if errors.Is(err, errIsFolder) {
			err = fmt.Errorf("%w (%w)", fs.ErrExist, err)
		}
		return pathError(ctx, "create file", filePath, err)
	}
	if err := s.write(ctx, k, content, true); err != nil {
		return pathError(ctx, "create file", filePath, err)
	}
	return nil
}

// UpsertFile creates or replaces a file. An object store replaces an
// object atomically: readers get the old content or the new.
func (s *Storage) UpsertFile(ctx context.Context, filePath string, content []byte) error {
	k, err := key(ctx, filePath)
	if err != nil {
		return err
	}
	if err := s.checkWrite(ctx, k); err != nil {
		return pathError(ctx, "upsert file", filePath, err)
	}
	if err := s.write(ctx, k, content, false); err != nil {
		return pathError(ctx, "upsert file", filePath, err)
	}
	return nil
}

// UpsertFileFrom creates or replaces a file with what write writes
// (core.FileStreamWriter): the object is uploaded as it is written, in
// parts, and appears whole when write returns; an error of write, or ctx
// ending, aborts the upload, so the old object stays and write's error is
// returned unchanged.
func (s *Storage) UpsertFileFrom(ctx context.Context, filePath string, write func(w io.Writer) error) error {
	k, err := key(ctx, filePath)
	if err != nil {
		return err
	}
	if err := s.checkWrite(ctx, k); err != nil {
		return pathError(ctx, "upsert file", filePath, err)
	}
	token := make([]byte, 12)
	_, _ = rand.Read(token)
	upload, abort := context.WithCancel(ctx)
	defer abort()
	w, err := s.bucket.NewWriter(upload, k, &blob.WriterOptions{
		ContentType: "application/octet-stream",
		Metadata:    map[string]string{versionKey: hex.EncodeToString(token)},
	})
	if err != nil {
		return pathError(ctx, "upsert file", filePath, err)
	}
	if err := write(w); err != nil {
		abort() // before Close: the upload is dropped, not committed
		_ = w.Close()
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return err
	}
	if err := w.Close(); err != nil {
		return pathError(ctx, "upsert file", filePath, err)
	}
	s.remember(k, true, false)
	return nil
}

// inParallel runs fn(0) … fn(n-1), parallelWrites at a time, and joins
// their errors.
func inParallel(n int, fn func(i int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, parallelWrites)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = fn(i)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// WriteFiles upserts every file, several at once; each is durable when
// its write returns.
func (s *Storage) WriteFiles(ctx context.Context, files []core.FileWrite) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := inParallel(len(files), func(i int) error {
		return s.UpsertFile(ctx, files[i].Path, files[i].Content)
	})
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return err
}

// ReadFile returns a file's bytes; an error wrapping fs.ErrNotExist if it
// is missing.
func (s *Storage) ReadFile(ctx context.Context, filePath string) ([]byte, error) {
	k, err := key(ctx, filePath)
	if err != nil {
		return nil, err
	}
	if k == "" {
		return nil, pathError(ctx, "read file", filePath, errIsFolder)
	}
	b, err := retryTorn(ctx, func() ([]byte, error) { return s.bucket.ReadAll(ctx, k) })
	if err != nil {
		if notFound(err) {
			s.remember(k, false, false)
			if folder, ferr := s.isFolder(ctx, k); ferr == nil && folder {
				err = errIsFolder
			}
		}
		return nil, pathError(ctx, "read file", filePath, err)
	}
	s.remember(k, true, false)
	return b, nil
}

// OpenFileRange opens a file for reads of its parts, each a ranged read of
// the object (one request); an error wrapping fs.ErrNotExist if it is
// missing. A segmented index that keeps 4-bit codes reads its vectors so,
// a few rows a query, rather than every segment whole.
func (s *Storage) OpenFileRange(ctx context.Context, filePath string) (core.RangeFile, error) {
	k, err := key(ctx, filePath)
	if err != nil {
		return nil, err
	}
	if k == "" {
		return nil, pathError(ctx, "open file", filePath, errIsFolder)
	}
	attrs, err := retryTorn(ctx, func() (*blob.Attributes, error) { return s.bucket.Attributes(ctx, k) })
	if err != nil {
		return nil, pathError(ctx, "open file", filePath, err)
	}
	return &rangeFile{s: s, key: k, path: filePath, size: attrs.Size}, nil
}

// rangeFile is an object opened by OpenFileRange.
type rangeFile struct {
	s    *Storage
	key  string
	path string
	size int64
}

func (f *rangeFile) Size() int64 { return f.size }

func (f *rangeFile) ReadRange(ctx context.Context, p []byte, off int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if off < 0 || off > f.size || int64(len(p)) > f.size-off {
		return fmt.Errorf("storageblob: read %q at %d: %w", f.path, off, io.ErrUnexpectedEOF)
	}
	if len(p) == 0 {
		return nil
	}
	_, err := retryTorn(ctx, func() (struct{}, error) {
		r, err := f.s.bucket.NewRangeReader(ctx, f.key, off, int64(len(p)), nil)
		if err != nil {
			return struct{}{}, err
		}
		defer r.Close()
		_, err = io.ReadFull(r, p)
		return struct{}{}, err
	})
	if err != nil {
		return pathError(ctx, "read file", f.path, err)
	}
	return nil
}

// tornRetries is how often a read is tried again when it failed as a read
// racing a replacement of the object can with some drivers: gocloud's
// file:// driver keeps an object's attributes in a second file, written in
// place after the object's content, which a reader may find empty or half
// written (io.EOF, io.ErrUnexpectedEOF or a JSON syntax error); a response
// body cut short fails so too. The tries wait 1, 2, 4, 8, then 16 ms each:
// about 0.2 s in all, which outlasts a writer replacing the object without
// pause (measured: 0 of 7,700 reads failed, 3 of 4,200 with 63 ms).
const tornRetries = 16

// retryTorn runs read until it succeeds, fails otherwise than as a torn
// read (see tornRetries), ctx ends, or tornRetries tries more have failed.
func retryTorn[T any](ctx context.Context, read func() (T, error)) (T, error) {
	v, err := read()
	wait := time.Millisecond
	for try := 0; try < tornRetries && err != nil && torn(err); try++ {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return v, err
		case <-t.C:
		}
		wait = min(2*wait, 16*time.Millisecond)
		v, err = read()
	}
	return v, err
}

// torn reports whether err is what a read racing a replacement gives.
func torn(err error) bool {
	var syntax *json.SyntaxError
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &syntax)
}

func (f *rangeFile) Close() error { return nil }

// DeleteFile removes a file; no error if it is missing.
func (s *Storage) DeleteFile(ctx context.Context, filePath string) error {
	k, err := key(ctx, filePath)
	if err != nil {
		return err
	}
	if !s.knownFile(k) {
		if folder, err := s.isFolder(ctx, k); err != nil {
			return pathError(ctx, "delete file", filePath, err)
		} else if folder {
			return pathError(ctx, "delete file", filePath, errIsFolder)
		}
	}
	if err := s.bucket.Delete(ctx, k); err != nil && !notFound(err) {
		return pathError(ctx, "delete file", filePath, err)
	}
	s.remember(k, false, false)
	return nil
}

// PathExists reports whether a file or folder is at path.
func (s *Storage) PathExists(ctx context.Context, path string) (bool, error) {
	k, err := key(ctx, path)
	if err != nil {
		return false, err
	}
	if file, err := s.isFile(ctx, k); err != nil || file {
		if err != nil {
			return false, pathError(ctx, "path exists", path, err)
		}
		return true, nil
	}
	folder, err := s.isFolder(ctx, k)
	if err != nil {
		return false, pathError(ctx, "path exists", path, err)
	}
	return folder, nil
}

// CreateFolder creates a folder and its parents, writing a marker object
// for each level that has no key below it; no error if it exists. A file
// at the path or at a parent's is an error wrapping fs.ErrExist.
func (s *Storage) CreateFolder(ctx context.Context, folderPath string) error {
	k, err := key(ctx, folderPath)
	if err != nil {
		return err
	}
	if k == "" {
		return nil
	}
	segs := strings.Split(k, "/")
	for i := range segs {
		level := strings.Join(segs[:i+1], "/")
		folder, err := s.isFolder(ctx, level)
		if err != nil {
			return pathError(ctx, "create folder", folderPath, err)
		}
		if folder {
			continue
		}
		if file, err := s.isFile(ctx, level); err != nil {
			return pathError(ctx, "create folder", folderPath, err)
		} else if file {
			return pathError(ctx, "create folder", folderPath, fmt.Errorf("%q %w: %w", level, errIsFile, fs.ErrExist))
		}
		if err := s.bucket.WriteAll(ctx, marker(level), nil, nil); err != nil {
			return pathError(ctx, "create folder", folderPath, err)
		}
		s.remember(level, false, true)
	}
	return nil
}

// DeleteFolder removes a folder and every key below it, a page of keys at
// a time; no error if it is missing.
func (s *Storage) DeleteFolder(ctx context.Context, folderPath string) error {
	k, err := key(ctx, folderPath)
	if err != nil {
		return err
	}
	if k == "" {
		return pathError(ctx, "delete folder", folderPath, errDeletesRoot)
	}
	if file, err := s.isFile(ctx, k); err != nil {
		return pathError(ctx, "delete folder", folderPath, err)
	} else if file {
		return pathError(ctx, "delete folder", folderPath, errIsFile)
	}
	defer s.forgetBelow(k)
	opts := &blob.ListOptions{Prefix: below(k)}
	for token := blob.FirstPageToken; len(token) > 0; {
		var page []*blob.ListObject
		page, token, err = s.bucket.ListPage(ctx, token, 1000, opts)
		if err != nil {
			return pathError(ctx, "delete folder", folderPath, err)
		}
		err := inParallel(len(page), func(i int) error {
			if err := s.bucket.Delete(ctx, page[i].Key); err != nil && !notFound(err) {
				return err
			}
			return nil
		})
		if err != nil {
			return pathError(ctx, "delete folder", folderPath, err)
		}
	}
	return nil
}

// details describes key k, a file or a folder, as the path p names it.
func details(k string, folder bool) core.FileDetails {
	name := k[strings.LastIndexByte(k, '/')+1:]
	if folder {
		return core.FileDetails{Name: name, Path: k, IsFolder: true, FileType: core.FileTypeFolder}
	}
	return core.FileDetails{Name: name, Path: k, FileType: core.GetFileType(name)}
}

// GetDetails describes a path; an error wrapping fs.ErrNotExist if
// nothing is there.
func (s *Storage) GetDetails(ctx context.Context, path string) (core.FileDetails, error) {
	k, err := key(ctx, path)
	if err != nil {
		return core.FileDetails{}, err
	}
	if k == "" {
		return core.FileDetails{Path: "", IsFolder: true, FileType: core.FileTypeFolder}, nil
	}
	if file, err := s.isFile(ctx, k); err != nil {
		return core.FileDetails{}, pathError(ctx, "get details", path, err)
	} else if file {
		return details(k, false), nil
	}
	if folder, err := s.isFolder(ctx, k); err != nil {
		return core.FileDetails{}, pathError(ctx, "get details", path, err)
	} else if folder {
		return details(k, true), nil
	}
	return core.FileDetails{}, pathError(ctx, "get details", path, fs.ErrNotExist)
}

// ListFiles lists the immediate children of a folder, sorted by name: the
// objects directly under its prefix and the folders ("directories") one
// level down. Folder markers are not listed.
func (s *Storage) ListFiles(ctx context.Context, folderPath string, filter core.ListFilesFilter) ([]core.FileDetails, error) {
	k, err := key(ctx, folderPath)
	if err != nil {
		return nil, err
	}
	switch filter {
	case "":
		filter = core.ListAll
	case core.ListAll, core.ListFilesOnly, core.ListFoldersOnly:
	default:
		return nil, pathError(ctx, "list files", folderPath, fmt.Errorf("filter %q: %w", filter, core.ErrInvalidArgument))
	}
	prefix := ""
	if k != "" {
		prefix = below(k)
	}
	entries := map[string]bool{} // child key → is a folder
	found := k == ""
	opts := &blob.ListOptions{Prefix: prefix, Delimiter: "/"}
	for token := blob.FirstPageToken; len(token) > 0; {
		var page []*blob.ListObject
		page, token, err = s.bucket.ListPage(ctx, token, 1000, opts)
		if err != nil {
			return nil, pathError(ctx, "list files", folderPath, err)
		}
		for _, obj := range page {
			found = true
			child := strings.TrimSuffix(obj.Key, "/")
			switch {
			case obj.Key == prefix || obj.Key == prefix+MarkerName: // the folder's own marker
			case obj.IsDir || strings.HasSuffix(obj.Key, "/"): // a folder, or a console's marker of one
				entries[child] = true
			default:
				entries[child] = entries[child] || false
			}
		}
	}
	if !found {
		if file, err := s.isFile(ctx, k); err != nil {
			return nil, pathError(ctx, "list files", folderPath, err)
		} else if file {
			return nil, pathError(ctx, "list files", folderPath, errIsFile)
		}
		return nil, pathError(ctx, "list files", folderPath, fs.ErrNotExist)
	}
	s.remember(k, false, k != "")
	out := make([]core.FileDetails, 0, len(entries))
	for child, folder := range entries {
		if folder && filter != core.ListFilesOnly || !folder && filter != core.ListFoldersOnly {
			out = append(out, details(child, folder))
		}
	}
	slices.SortFunc(out, func(a, b core.FileDetails) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// FileVersion returns a token that changes with every write of the file:
// the random token each write through this package stores in the object's
// metadata, else (an object written by another tool) its ETag, size and
// modification time. One metadata request, no read of the content.
func (s *Storage) FileVersion(ctx context.Context, filePath string) (string, error) {
	k, err := key(ctx, filePath)
	if err != nil {
		return "", err
	}
	if k == "" {
		return "", pathError(ctx, "file version", filePath, errIsFolder)
	}
	attrs, err := retryTorn(ctx, func() (*blob.Attributes, error) { return s.bucket.Attributes(ctx, k) })
	if err != nil {
		return "", pathError(ctx, "file version", filePath, err)
	}
	if v := attrs.Metadata[versionKey]; v != "" {
		return v, nil
	}
	return attrs.ETag + ":" + strconv.FormatInt(attrs.Size, 10) + ":" + strconv.FormatInt(attrs.ModTime.UnixNano(), 10), nil
}

// IsURL reports whether location is a bucket URL that Open takes ("s3://…",
// "gs://…", "azblob://…", "file://…", "mem://") rather than a folder path.
// A Windows drive path ("C:\indexes") is a folder path.
func IsURL(location string) bool {
	u, err := url.Parse(location)
	return err == nil && len(u.Scheme) > 1 && strings.HasPrefix(location[len(u.Scheme):], "://")
}
