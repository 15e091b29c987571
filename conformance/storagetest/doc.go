// Package storagetest is the conformance suite for [core.FileStorage].
//
// Every storage adapter runs it from its tests:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(t testing.TB) storagetest.Harness {
//			return storagetest.Harness{Storage: mystorage.New(), Root: t.TempDir()}
//		}, storagetest.Capabilities{AtomicReplace: true})
//	}
//
// and [Check] runs the same cases outside go test, joining every violation
// with the rule it broke. Each case gets a fresh [Harness]: a storage and an
// existing, empty root folder to work under. [RunBenchmarks] runs, with
// the same harnesses, the benchmarks every storage shares.
//
// The rules every storage keeps, whatever it claims in [Capabilities] (paths
// below are relative to the harness root):
//
//   - CreateFile writes a new file; if a file or folder is at the path it
//     fails with an error wrapping fs.ErrExist and changes nothing.
//   - CreateFile and UpsertFile need the parent folder: a missing one fails
//     with fs.ErrNotExist and nothing is created; a file as parent fails.
//   - UpsertFile creates or replaces the whole content; over a folder it
//     fails and leaves the folder as it was.
//   - Writes keep their own copy of the caller's bytes, and ReadFile returns
//     a copy the caller may change. Empty content is a file of zero bytes.
//   - ReadFile and GetDetails of a missing path, or of a path below a file,
//     fail with fs.ErrNotExist; ReadFile of a folder fails.
//   - DeleteFile of a missing path is not an error; of a folder, it fails.
//   - CreateFolder creates missing parents and is idempotent; over a file it
//     fails with fs.ErrExist.
//   - DeleteFolder is recursive, keeps siblings that share its name's
//     prefix, is not an error for a missing folder, and fails on a file.
//   - PathExists is true for files, folders and the root, false for missing
//     paths and paths below a file.
//   - GetDetails and ListFiles describe a file as {Name: its last segment,
//     Path: the clean path, FileType: core.GetFileType(name)} and a folder
//     with IsFolder and core.FileTypeFolder.
//   - ListFiles lists immediate children, sorted by name (byte order),
//     honours ListFilesOnly, ListFoldersOnly and ListAll, treats the empty
//     filter as ListAll and fails with core.ErrInvalidArgument on any other;
//     a missing folder fails with fs.ErrNotExist, a file fails. Listed paths
//     work with every other method, and each call returns a new slice.
//   - "a//b", "a/./b", "a/x/../b" and a trailing "/" on a folder name the
//     same entry, and reported paths are clean.
//   - A cancelled or expired context stops every method with the context's
//     error (matched with errors.Is), before any change.
//   - Concurrent use is safe (run the suite with -race): distinct files do
//     not interfere, concurrent UpsertFile calls of one path leave one whole
//     version, and of concurrent CreateFile calls of one path exactly one
//     succeeds.
//   - A *core.LocalIndex over the storage (with [reference.Codec]) keeps its
//     items, side-car metadata and filtered query results when the folder is
//     reopened (through Harness.Reopen where the storage is Persistent).
//   - Storages that implement the optional [core.GroupWriter] write every
//     file of a group, keep their own copy of the bytes, and fail into a
//     missing folder or over a folder.
//   - Storages that implement the optional [core.FolderLocker] let one
//     holder at a time into a folder (a second LockFolder waits for the
//     unlock, or for its context to end), lock folders independently, and
//     fail on a missing folder with fs.ErrNotExist.
//   - Storages that implement the optional [core.FileVersioner] give a file
//     a version that stays while it is unchanged and changes with every
//     write, even of the same bytes, and fail on a missing file with
//     fs.ErrNotExist.
//   - Storages that implement the optional [core.FileStreamer] stream the
//     bytes ReadFile returns (with their size, or -1), fail on a missing
//     file with fs.ErrNotExist, and stop reading once the context ends.
//   - Storages that implement the optional [core.FileRangeReader] read any
//     part of what ReadFile returns (with its size), fail a range past the
//     end with io.ErrUnexpectedEOF and a missing file with
//     fs.ErrNotExist, stop once the context ends, and after the file is
//     deleted read its bytes or fail with fs.ErrNotExist; a file that is
//     also a [core.RangeBatcher] reads many parts, overlapping or empty,
//     as ReadRange reads each.
//
// Storages that claim AtomicReplace also never show a reader a mix, prefix
// or absence of the file being replaced; Persistent ones show a reopened
// storage what was written; Confined ones refuse paths that leave the root.
//
// # Concurrency
//
// [Run] and [Check] run their cases one after another; the concurrency cases
// call one storage from several goroutines. The functions of this package
// are safe to call from several goroutines at once.
//
// # Errors
//
// [Check] returns nil when nothing was violated, else an error joining (with
// [errors.Join]) one error per violation, each prefixed with the rule it
// broke. A panic in the storage is a violation of the case that caused it.
package storagetest
