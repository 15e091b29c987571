// Package storageblob is a [core.FileStorage] over object storage — Amazon
// S3 and S3-compatible servers, Google Cloud Storage, Azure Blob Storage —
// through the portable gocloud.dev/blob API, so an index folder can live in
// a bucket, shared by several servers and backed up off the machine.
//
//	s, err := storageblob.Open(ctx, "s3://my-bucket?region=eu-west-1&prefix=indexes/")
//	ix, err := folio.NewLocalIndex("products", &folio.IndexOptions{Storage: s})
//
// [Open] takes a gocloud bucket URL (s3://, gs://, azblob://, file://,
// mem://; see each driver's documentation for its query parameters, such as
// endpoint and use_path_style for an S3-compatible server); [New] takes a
// *blob.Bucket the caller opened. Credentials come from the environment, as
// each driver reads them (AWS_ACCESS_KEY_ID…, GOOGLE_APPLICATION_CREDENTIALS,
// AZURE_STORAGE_ACCOUNT…); this package never logs them, nor a URL's query.
// For an S3-compatible server that returns no checksums, add
// response_checksum_validation=when_required to the URL, or the AWS SDK
// logs a warning of its own to stderr on every read.
//
// # Files and folders
//
// Paths are keys relative to the bucket (and prefix), "/"-separated and
// normalised as [pathutil.Normalize] does; a leading "/" is ignored. A file
// is an object. An object store has no folders, so a folder exists when a
// key lies below it: any object, or the empty marker object [MarkerName]
// that CreateFolder writes for each level it creates (an empty object whose
// key ends in "/", as the S3 and Google Cloud consoles make, counts too).
// ListFiles never lists markers. DeleteFolder deletes every key below the
// folder, a page of keys at a time.
//
// The rules [storagetest] pins hold: CreateFile and UpsertFile need their
// folder, never write over a folder, and CreateFile fails with
// fs.ErrExist on an existing key. Checking those costs a metadata or
// one-key listing request the first time a path is seen; the storage value
// remembers which keys it has seen to be files and folders, so a commit that
// replaces a known index file is one PUT. What it remembers is not
// refreshed from other writers (see "Several writers").
//
// # Conditional writes
//
// CreateFile uses the store's conditional write (WriterOptions.IfNotExist):
// S3 (If-None-Match: *, which S3 and most S3-compatible servers honour),
// Google Cloud Storage (a generation precondition) and Azure Blob Storage
// (If-None-Match: *) refuse a second creation of a key atomically, so of two
// processes creating one key exactly one succeeds. The file:// and mem://
// drivers check before they write; this package serialises CreateFile
// calls of one key within a Storage value, so the rule holds within a
// process but not between processes sharing a file:// folder.
//
// # Several readers, one writer
//
// A replacement is atomic on S3, Google Cloud Storage and Azure: a reader
// gets the old object or the new one. (gocloud's file:// driver keeps an
// object's attributes in a second file, so a read racing a replacement can
// fail; it never returns a mix.) Storage implements [core.FileVersioner]:
// every write stores a random token in the object's metadata, and
// FileVersion reads it with one metadata request (an object written by
// another tool is versioned by its ETag, size and modification time), so a
// LocalIndex serving from a bucket notices another process's commit within
// its FreshnessInterval without reading the index again.
//
// There is no lock between processes on object storage: Storage does not
// implement [core.FolderLocker]. One writer per index is the rule; any
// number of readers may share it. Two writers on one index would each
// overwrite the other's commits.
//
// # Concurrency
//
// A Storage is safe for concurrent use. WriteFiles and DeleteFolder send up
// to 8 requests at once.
//
// # Errors
//
// Errors carry the operation and the path ("storageblob: read file
// \"ix/index.json\": file does not exist (…)"). A missing object, folder or
// parent folder wraps [io/fs.ErrNotExist]; an existing one where a new file
// or folder should go wraps [io/fs.ErrExist]; an unknown ListFiles filter
// and deleting the top folder wrap [core.ErrInvalidArgument]. A cancelled
// or expired context is returned unchanged. Other errors are the driver's,
// wrapped: gcerrors.Code tells their kind.
package storageblob
