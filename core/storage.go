package core

import "fmt"

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
