// Package storageidb is a [core.FileStorage] for the browser: files and
// folders kept in an IndexedDB database of the page's origin, so an index
// survives reloads. It builds for GOOS=js GOARCH=wasm only; on other
// platforms the package is empty.
//
// The database uses the layout of Vectra 0.15's IndexedDBStorage, so an
// index written by Vectra's browser build in a page opens in Folio's and
// the other way round: database "vectra-db" (by default) at version 1,
// object stores "files" and "folders" keyed by "path" with a "parentPath"
// index, file records {path, parentPath, content: ArrayBuffer, createdAt,
// updatedAt} and folder records {path, parentPath, createdAt}. Paths are
// normalised as package pathutil does.
//
// Where Vectra's storage misbehaves, this one does not: top-level entries
// are listed by ListFiles(""), a file is only written into an existing
// folder and never over a folder, every write (with its checks) is one
// IndexedDB transaction, so a page closed mid-write leaves the old file or
// the new one, and [IndexedDBStorage.WriteFiles] writes a group of files in
// one transaction.
//
// # Concurrency
//
// An IndexedDBStorage is safe for concurrent use by goroutines. IndexedDB
// runs transactions over the same stores one after another, so each call
// sees the effect of every call that returned before it, in this page and
// in other tabs of the origin. No lock spans several calls.
//
// # Errors
//
// A missing path is an error wrapping fs.ErrNotExist, an existing one that
// CreateFile or CreateFolder would overwrite wraps fs.ErrExist, an unknown
// ListFiles filter or deleting a root folder wraps core.ErrInvalidArgument,
// and calls after Close wrap fs.ErrClosed. A call whose ctx ends returns
// ctx's error unchanged and aborts its transaction, so nothing it would
// have written is kept. Failures IndexedDB reports (a full quota, a
// blocked upgrade) are a *DOMError with the DOMException's name.
package storageidb
