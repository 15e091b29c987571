package core

import "context"

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

// FileWrite is one file of [GroupWriter.WriteFiles].
type FileWrite struct {
	Path    string
	Content []byte
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
