// Package storagemem is an in-memory [core.FileStorage]: Vectra's
// VirtualFileStorage, for tests, the browser (GOOS=js) and WASI, and any
// index that need not outlive the process.
//
// Paths are normalised with [pathutil.Normalize], so "a//b", "a/./b",
// "a/x/../b" and "a\b" name the same entry, a trailing "/" is ignored, and a
// ".." that would climb above the top is dropped. The relative top ("") and
// the absolute root ("/") are two folders that always exist; every other
// folder is created with CreateFolder.
//
// It keeps the same rules as storagefs, which storagetest pins for both, and
// fixes Vectra's VirtualFileStorage where they differ: CreateFolder creates
// missing parents, DeleteFolder is recursive, CreateFile and UpsertFile need
// their parent folder to exist, and ListFiles reports folders with
// [core.FileTypeFolder] and sorts its entries by name.
//
// # Concurrency
//
// A VirtualFileStorage is safe for concurrent use; a sync.RWMutex lets reads
// run in parallel. Every write replaces a file whole under the lock, so
// readers see the old content or the new one, never a mix. Contents are
// copied on the way in and on the way out: callers may change the slices
// they pass or get back. It implements [core.FolderLocker] (an in-process
// lock per folder, shared by every user of the storage value) and
// [core.FileVersioner] (a generation counter every write advances), so
// several LocalIndex values over one storage share a folder as processes
// share one on disk.
//
// # Errors
//
// Errors carry the operation and the path ("storagemem: create file
// \"a.txt\": file already exists"). A path that exists where a new file or
// folder should go wraps [io/fs.ErrExist]; a missing file, folder or parent
// folder wraps [io/fs.ErrNotExist]. An unknown ListFiles filter and deleting
// a root folder wrap [core.ErrInvalidArgument]. A file used as a folder or a
// folder used as a file is an error of its own. A cancelled or expired
// context is returned unchanged, before any change.
package storagemem
