package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// The ports: the interfaces core reads and writes through, each implemented
// by adapters in their own modules and checked by a conformance suite, and
// the optional capabilities a port's implementation may add (found by type
// assertion; a port never gains a method).

// FileStorage is the port every index reads and writes through. Paths use
// "/" as separator (see package pathutil).
//
// Implementations must be safe for concurrent use.
type FileStorage interface {
	// CreateFile writes a new file; an error wrapping fs.ErrExist if the path exists.
	CreateFile(ctx context.Context, filePath string, content []byte) error
	// UpsertFile creates or replaces a file. Implementations that can should
	// make the replacement atomic.
	UpsertFile(ctx context.Context, filePath string, content []byte) error
	// ReadFile returns a file's bytes; an error wrapping fs.ErrNotExist if missing.
	ReadFile(ctx context.Context, filePath string) ([]byte, error)
	// DeleteFile removes a file; no error if it is missing.
	DeleteFile(ctx context.Context, filePath string) error
	// PathExists reports whether a file or folder exists at path.
	PathExists(ctx context.Context, path string) (bool, error)
	// CreateFolder creates a folder and its parents; no error if it exists.
	CreateFolder(ctx context.Context, folderPath string) error
	// DeleteFolder removes a folder and everything in it.
	DeleteFolder(ctx context.Context, folderPath string) error
	// GetDetails describes a path; an error wrapping fs.ErrNotExist if missing.
	GetDetails(ctx context.Context, path string) (FileDetails, error)
	// ListFiles lists the immediate children of a folder.
	ListFiles(ctx context.Context, folderPath string, filter ListFilesFilter) ([]FileDetails, error)
}

// GroupWriter is an optional capability of a [FileStorage], found by type
// assertion: writing many files with one durability barrier for all of them
// instead of one per file. A commit writes the side-car and document files
// of a batch through it, before the index file that refers to them; a
// storage without it gets one UpsertFile call per file (several at once).
//
// Implementations must be safe for concurrent use.
type GroupWriter interface {
	// WriteFiles creates or replaces every file (their folders exist) and
	// returns once all of them are durable. Readers never see a file half
	// written. Until WriteFiles returns nil, a crash may leave any of the
	// files missing, or, on storage that defers durability to the
	// barrier, empty or partly written: callers write through it only
	// files that nothing refers to yet. On error, any subset of the files
	// may have been written.
	WriteFiles(ctx context.Context, files []FileWrite) error
}

// FileMapper is an optional capability of a [FileStorage], found by type
// assertion: mapping a file's bytes into memory, read-only, instead of
// reading them. A segmented index whose storage has it reads the vectors
// of its large segments in place from their mappings: opening copies none
// of them, and the operating system keeps in memory what queries touch
// (Folio's file-system storage maps with mmap(2) on Unix).
//
// Implementations must be safe for concurrent use.
type FileMapper interface {
	// MapFile maps the whole of a regular file, read-only, with the same
	// files and errors as ReadFile. The bytes stay valid and unchanged
	// until Close, whatever happens to the file meanwhile: Folio maps only
	// files it never changes in place (a segment is replaced by a new
	// file, never rewritten), and may delete one while it is mapped.
	MapFile(ctx context.Context, filePath string) (MappedFile, error)
}

// MappedFile is a file mapped by a [FileMapper].
//
// A MappedFile may also be an [io.ReaderAt] reading the same bytes without
// bringing the mapping's pages into the process's memory (storagefs:
// pread(2)). An index that keeps 4-bit codes (CodesInt4) re-ranks its
// candidates with rows read through it, so that its resident memory is
// its codes and not every page of vectors a query has ever touched (a
// mapped read brings in the file's whole page-cache folio, up to 2 MiB).
type MappedFile interface {
	// Bytes is the file's content. Writing to it is not allowed (it
	// faults on most systems).
	Bytes() []byte
	// Close unmaps the file: Bytes must not be used after it.
	Close() error
}

// FileRangeReader is an optional capability of a [FileStorage], found by
// type assertion: reading parts of a file without reading the rest. A
// segmented index that keeps 4-bit codes (IndexOptions.ScanCodes), on a
// storage that has it but does not map files ([FileMapper]), reads of
// each large segment only its header, codes, ids and metadata when it
// opens, and afterwards the rows a query re-ranks, when it re-ranks them:
// the vectors stay in the storage (Folio's in-memory and object storages
// have it).
//
// Implementations must be safe for concurrent use.
type FileRangeReader interface {
	// OpenFileRange opens a file for reads of its parts, with the same
	// files and errors as ReadFile. The caller closes it.
	OpenFileRange(ctx context.Context, filePath string) (RangeFile, error)
}

// RangeFile is a file opened by a [FileRangeReader]. Folio opens so only
// files it never changes in place (a segment is replaced by a new file,
// never rewritten); a read of a file deleted since it was opened may fail
// with an error wrapping fs.ErrNotExist.
//
// Implementations must be safe for concurrent use.
type RangeFile interface {
	// Size is the file's length in bytes.
	Size() int64
	// ReadRange fills p with the file's bytes from offset off: all of
	// them, or an error (io.ErrUnexpectedEOF when the file ends first).
	ReadRange(ctx context.Context, p []byte, off int64) error
	// Close releases the file: ReadRange must not be called after it.
	Close() error
}

// RangeBatcher is an optional capability of a [RangeFile], found by type
// assertion: reading many parts of the file with one call, which a storage
// far from its files (HTTP) serves with a few requests sent at once
// instead of one after another. A segmented index re-ranks a query's
// candidates, and reads a segment's codes and ids when it opens, with one
// call each.
//
// Implementations must be safe for concurrent use.
type RangeBatcher interface {
	// ReadRanges fills every part as ReadRange would, in any order and
	// with any concurrency; parts may be empty and may overlap. It returns
	// nil when every part was read, else an error (io.ErrUnexpectedEOF for
	// a part past the file's end), the parts then holding any bytes.
	ReadRanges(ctx context.Context, parts []FilePart) error
}

// FilePart is one part of [RangeBatcher.ReadRanges]: P filled with the
// file's bytes from offset Off.
type FilePart struct {
	P   []byte
	Off int64
}

// PageReleaser is an optional capability of a [MappedFile], found by type
// assertion: dropping the mapping's pages from the process's memory while
// the mapping stays valid, so that a later read of Bytes faults them in
// again from the file, unchanged. A segmented index releases the pages of
// a segment a compaction replaced, which queries already running may
// still read, rather than keeping them until the mapping is closed
// (storagefs: madvise(2) with MADV_DONTNEED, on Linux).
type PageReleaser interface {
	ReleasePages() error
}

// FileStreamer is an optional capability of a [FileStorage], found by type
// assertion: reading a file as a stream. A LocalIndex whose storage has it
// and whose codec is an [IndexStreamDecoder] decodes its index file while
// reading it, so opening touches about the size of the vectors in fresh
// memory instead of the file's bytes and then the vectors.
//
// Implementations must be safe for concurrent use.
type FileStreamer interface {
	// OpenFile opens a file for reading. size is its length in bytes when
	// known, else -1. A missing file is an error wrapping fs.ErrNotExist.
	// Reads from rc return ctx's error once ctx ends. The caller closes
	// rc.
	OpenFile(ctx context.Context, filePath string) (rc io.ReadCloser, size int64, err error)
}

// FileStreamWriter is an optional capability of a [FileStorage], found by
// type assertion: writing a file as a stream. A LocalIndex whose storage
// has it and whose codec is an [IndexStreamEncoder] encodes its index file
// straight into the storage at each commit, never holding the encoded file
// or a copy of its items.
//
// Implementations must be safe for concurrent use.
type FileStreamWriter interface {
	// UpsertFileFrom creates or replaces a file, as UpsertFile does
	// (atomically and durably), with what write writes to w. An error of
	// write, or ctx ending, leaves the file as it was and returns that
	// error; no partial file is left behind.
	UpsertFileFrom(ctx context.Context, filePath string, write func(w io.Writer) error) error
}

// ColdFileHint is an optional capability of the writer a
// [FileStreamWriter] hands to the function of UpsertFileFrom, found by
// type assertion. ColdFile, called before the first write, says that the
// file will not be read back soon (a LocalIndex says it of its index file
// of Vectra's layout, whose items it keeps in memory), so that the storage
// may write a large file around the operating system's page cache, which
// costs far less CPU. It is a hint: what is written, and how atomically
// and durably, is the same either way.
type ColdFileHint interface {
	ColdFile()
}

// TempFileRemover is an optional capability of a FileStorage, found by type
// assertion: removing the temporary files that interrupted writes left in
// a folder. Such files are the storage's own (storagefs names them
// ".folio-tmp-…") and never listed by ListFiles, so only the storage can
// find them.
type TempFileRemover interface {
	// RemoveTempFiles removes the temporary files that interrupted writes
	// left in folderPath (not below it), and returns how many: those last
	// modified more than olderThan ago and, where the storage can tell a
	// write in progress from one that ended (storagefs on Unix: the
	// writer's lock on the file), those of ended writes whatever their
	// age. It never removes the file of a write in progress younger than
	// olderThan.
	RemoveTempFiles(ctx context.Context, folderPath string, olderThan time.Duration) (int, error)
}

// FolderLocker is an optional capability of a FileStorage, found by type
// assertion: an exclusive lock on a folder that every user of the same
// files respects — every process, for storage shared between processes.
// A LocalIndex over such a storage takes its folder's lock around every
// commit, so writers in different processes never overwrite each other's
// changes (see [LocalIndex], "Several processes").
//
// Implementations must be safe for concurrent use. A lock held by a
// process that dies must be released without help (an operating-system
// file lock is), so a crash never leaves a folder locked.
type FolderLocker interface {
	// LockFolder takes the exclusive lock of the existing folder
	// folderPath, waiting while another holder has it. It returns ctx's
	// error, unchanged, if ctx ends first, and an error wrapping
	// fs.ErrNotExist if the folder is missing. unlock releases the lock;
	// it must be called exactly once. The lock is not reentrant: a second
	// LockFolder of the same folder waits for the first unlock, also in
	// the same process.
	LockFolder(ctx context.Context, folderPath string) (unlock func(), err error)
}

// FileVersioner is an optional capability of a FileStorage, found by type
// assertion: a cheap way to learn that a file changed since it was read,
// without reading it. A LocalIndex over such a storage notices commits
// that another process made to its folder: a writer reloads before it
// commits on top of them, and readers reload on their next call.
//
// Implementations must be safe for concurrent use.
type FileVersioner interface {
	// FileVersion returns a token for the file's current content: any
	// write that replaces or changes the file changes the token, and the
	// token is unchanged while the file is. Tokens are only compared for
	// equality, and only tokens of the same path. A missing file is an
	// error wrapping fs.ErrNotExist.
	FileVersion(ctx context.Context, filePath string) (string, error)
}

// FileDetails describes one file or folder.
type FileDetails struct {
	Name     string
	Path     string
	IsFolder bool
	FileType FileType // "" when unknown; FileTypeFolder for folders
}

// ListFilesFilter selects what ListFiles returns.
type ListFilesFilter string

// ListFiles filters.
const (
	ListFilesOnly   ListFilesFilter = "files"
	ListFoldersOnly ListFilesFilter = "folders"
	ListAll         ListFilesFilter = "all"
)

// Selects reports what ListFiles with filter f returns: files, folders or
// both ("" is ListAll). An unknown filter is an error wrapping
// ErrInvalidArgument.
func (f ListFilesFilter) Selects() (files, folders bool, err error) {
	switch f {
	case ListAll, "":
		return true, true, nil
	case ListFilesOnly:
		return true, false, nil
	case ListFoldersOnly:
		return false, true, nil
	}
	return false, false, fmt.Errorf("unknown filter %q: %w", string(f), ErrInvalidArgument)
}

// FileWrite is one file of [GroupWriter.WriteFiles].
type FileWrite struct {
	Path    string
	Content []byte
}

// maxFileWrites bounds the UpsertFile calls a group write makes at once on
// storage without GroupWriter (durable storage syncs each file: overlapping
// them saves most of the wait).
const maxFileWrites = 16

// writeEach writes files with up to maxFileWrites UpsertFile calls at
// once: files.writeGroup on storage without GroupWriter.
func writeEach(ctx context.Context, st FileStorage, files []FileWrite) error {
	errs := make([]error, len(files))
	sem := make(chan struct{}, maxFileWrites)
	var wg sync.WaitGroup
	for i, f := range files {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = st.UpsertFile(ctx, f.Path, f.Content)
		})
	}
	wg.Wait()
	return errors.Join(errs...) // every file was tried: a failure leaves the others written
}
