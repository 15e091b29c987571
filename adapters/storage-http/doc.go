// Package storagehttp is a read-only [core.FileStorage] over HTTP: an index
// folder served by any static web server (a documentation site's host, a
// CDN, a bucket's public endpoint, `python3 -m http.server`) opens and
// answers queries with no Folio process on the host.
//
//	s, err := storagehttp.New("https://example.com/search/", nil)
//	ix, err := folio.NewLocalIndex("index", &folio.IndexOptions{Storage: s, ScanCodes: folio.CodesInt4})
//
// Paths are relative to the base URL ("index/manifest.json" is
// https://example.com/search/index/manifest.json); a path never leaves it.
// The same code runs natively and in the browser, where Go's net/http
// speaks through the page's fetch.
//
// # Reads
//
// ReadFile is one GET, capped at [Options.MaxFileSize]. A segmented index
// with 4-bit codes opens its segments through [core.FileRangeReader]:
// OpenFileRange fetches the file's first [Options.FirstRead] bytes with a
// Range request, which also tells the file's size and validator (ETag, else
// Last-Modified), and each later part is a Range request of exactly the
// bytes asked for. Many parts asked at once ([core.RangeBatcher], the rows
// a query re-ranks) are coalesced where they lie closer than
// [Options.CoalesceGap] and fetched over up to [Options.Parallel]
// requests at a time. Parts read are kept in a cache of
// [Options.CacheBytes] shared by every file of the storage, keyed by the
// file's version, so a later query asks only for what it has not read.
//
// # A host that changes the index
//
// Every part after the first is asked for under the validator the first
// read saw (If-Match with an ETag, else If-Unmodified-Since), and the
// answer's validator and length are checked again: a file replaced on the
// host between two reads fails with [ErrChanged], which wraps
// fs.ErrNotExist, so a query never mixes two versions of a file. A
// LocalIndex on this storage checks the version of its manifest through
// [core.FileVersioner] (a HEAD request) every FreshnessInterval, and a
// query whose file vanished or changed asks again on the index's newer
// state, as it does when another process compacts a local folder. A host
// that sends neither ETag nor Last-Modified gives no such guarantee for
// parts of a file: a file's version is then a hash of its bytes (up to 1
// MiB, such as a manifest) or its length, and parts are cached per open.
//
// # Hosts that do not keep the rules
//
//   - A host that ignores Range (answers 200 with the whole file) is read
//     whole, once, when the file is at most MaxFileSize bytes; a larger one
//     fails with [ErrRangeIgnored].
//   - A body longer or shorter than the range asked for, or a Content-Range
//     other than the one asked for, fails with [ErrBadResponse].
//   - 404 and 410 are fs.ErrNotExist; any other status outside 2xx is an
//     error wrapping [ErrStatus]. 5xx, 429 and failed connections are
//     retried up to [Options.Retries] times with exponential backoff.
//   - Each request ends after [Options.RequestTimeout] (then it is retried);
//     every call ends when its context does, with the context's error.
//   - A redirect to another origin (scheme, host and port) is refused with
//     [ErrRedirect] unless [Options.AllowOrigins] names it.
//
// # Writes
//
// Every write (CreateFile, UpsertFile, DeleteFile, CreateFolder,
// DeleteFolder) fails with [ErrReadOnly], which wraps errors.ErrUnsupported,
// and changes nothing. A static host cannot list folders: ListFiles fails
// with ErrReadOnly too. PathExists and GetDetails ask with HEAD; a folder
// exists where the host answers for it (most static hosts answer 404 for a
// folder without an index page), and GetDetails describes every path that
// exists as a file.
//
// A Storage is safe for concurrent use. Its URLs are never logged or put in
// errors with their query, which may hold a token.
package storagehttp
