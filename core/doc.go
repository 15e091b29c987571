// Package core is Folio's engine and the ports its adapters implement.
//
// Core depends on the standard library alone. It defines five ports —
// [FileStorage], [IndexCodec], [EmbeddingsModel], [Tokenizer] and [TextFetcher] —
// and the concrete types users hold: [LocalIndex], [LocalDocumentIndex],
// [LocalDocument], [LocalDocumentResult] and [TextSplitter]. Adapters
// (filesystem and in-memory storage, JSON and protobuf codecs, tokenizers,
// embeddings models) live in their own modules and are wired together by the
// root package github.com/foliovec/folio.
//
// Folio is file-compatible with Vectra 0.15: an index folder written by
// either opens in the other.
//
// # Concurrency
//
// Ports are called concurrently by the engine and must be safe for
// concurrent use unless their documentation says otherwise. The engine types
// document their own guarantees; [LocalIndex] is safe for concurrent use and
// its queries never wait for a writer.
//
// # Errors
//
// Conditions a caller branches on are sentinel errors ([ErrIndexExists],
// [ErrIndexNotFound], [ErrItemExists], [ErrUpdateInProgress], [ErrNoUpdate],
// [ErrInvalidArgument], [ErrInvalidFilter], [ErrDimensionMismatch],
// [ErrEmbeddingsNotConfigured], [ErrCorrupt], [ErrNotDocumentIndex],
// [ErrPartiallyMigrated]) matched with [errors.Is]. Storage errors wrap
// [io/fs.ErrNotExist] and [io/fs.ErrExist]. Embedding failures are
// [*EmbeddingsError], which matches [ErrEmbeddingsFailed], [ErrRateLimited]
// or [ErrEmbeddingsCancelled] through [errors.Is] according to its Status.
// Every method that takes a context returns the context's own error,
// unchanged (context.Canceled or context.DeadlineExceeded, never wrapped),
// once the context has ended.
//
// # Package-level state
//
// Core keeps no package-level mutable state, with one exception inherited
// from Vectra's FileType module: the extension lists ([FileExt],
// [PlainTextFileExt], …) and [ContentTypeMap] are exported variables that
// [GetFileType] and [GetFileTypeFromContentType] read. They are read-only
// by contract: changing them changes those functions for the whole
// process, and is a data race while they run.
package core
