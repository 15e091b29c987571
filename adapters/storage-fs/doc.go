// Package storagefs is Folio's [core.FileStorage] over the local file
// system: Vectra's LocalFileStorage, made atomic, durable and, when asked,
// confined to one directory.
//
// New(nil) uses paths as the operating system reads them. New with
// [Options.Root] confines every path to a directory (through [os.Root]):
// paths are relative to it, and absolute paths, ".." that climbs out and
// symbolic links that point out are refused with an error wrapping
// [ErrOutsideRoot] (and so [core.ErrInvalidArgument]). Confine the storage
// whenever paths come from outside the program: index names from a client,
// ids read from files.
//
// Paths use "/" as separator and are cleaned lexically, so "a//b",
// "a/./b" and "a/x/../b" name the same entry; FileDetails carry the clean
// path.
//
// # Writes
//
// Every write is atomic and durable. UpsertFile writes the content to a
// temporary file in the target's folder, fsyncs it, renames it over the
// target and fsyncs the folder; CreateFile does the same but links the
// temporary file into place, which fails if anything is already there, so
// creation is exclusive too. A crash or kill at any instant leaves the old
// content or the new, never a torn file. Temporary files are named
// [TempPrefix] followed by random hex; one left by a crash is never listed
// by ListFiles and may be deleted at any time. Names starting with
// TempPrefix cannot be written. Deletions and CreateFolder fsync the folder
// they change. On Windows, Plan 9 and WASI, folders are not fsynced (the
// standard library cannot); the rename is then the commit. On file systems
// without hard links CreateFile falls back to creating the file in place,
// still exclusively, but a crash mid-write may leave a partial new file.
//
// Rules that differ from Vectra, as core.FileStorage states them: DeleteFile
// and DeleteFolder of a missing path are no error, ListFiles honours its
// filter, sorts by name and reports folders with [core.FileTypeFolder], and
// listed paths are relative to the storage, not prefixed with its root.
// Like Vectra, CreateFile and UpsertFile need their parent folder to exist.
//
// # Concurrency
//
// A LocalFileStorage is safe for concurrent use and holds no locks: the
// file system orders the operations. Concurrent UpsertFile calls of one
// path leave one whole version; of concurrent CreateFile calls of one path
// exactly one succeeds. Other processes may use the same files; readers
// never see a partial write.
//
// For indexes shared between processes it implements [core.FolderLocker]
// (on Unix and Windows: an operating-system lock on the file [LockFile] in
// the folder, released by the kernel when its process dies) and
// [core.FileVersioner] (device, inode, size and modification time of one
// stat), with which a LocalIndex commits on top of other processes'
// commits and its readers notice them.
//
// # Errors
//
// Errors carry the operation and the path as given ("storagefs: create
// file \"a.txt\": file already exists") and wrap the file system's error,
// so [io/fs.ErrExist], [io/fs.ErrNotExist] and [io/fs.ErrPermission] match
// with errors.Is. A path below a file reads as missing (fs.ErrNotExist). An
// unknown ListFiles filter, a reserved temporary name and deleting the
// storage's top folder wrap [core.ErrInvalidArgument]; a path out of a
// rooted storage wraps [ErrOutsideRoot]. A cancelled or expired context is
// returned unchanged, before any change; a write cancelled after its
// temporary file is written removes it and changes nothing.
package storagefs
