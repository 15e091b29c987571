package core

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
