package core

import (
	"context"
	"errors"
	"strconv"

	"github.com/foliovec/folio/core/internal/errs"
	"github.com/foliovec/folio/core/internal/filter"
)

// Sentinel errors. Match them with [errors.Is]; messages that wrap them carry
// the operation and key, for example `insert item "42": item exists`.
var (
	// ErrIndexExists: CreateIndex found an index and DeleteIfExists was false.
	ErrIndexExists = errors.New("index already exists")
	// ErrIndexNotFound: the index file does not exist.
	ErrIndexNotFound = errors.New("index does not exist")
	// ErrItemExists: InsertItem or BatchInsertItems met an id already present.
	ErrItemExists = errors.New("item exists")
	// ErrUpdateInProgress: BeginUpdate was called while a batch is open.
	ErrUpdateInProgress = errors.New("update already in progress")
	// ErrNoUpdate: EndUpdate was called with no batch open.
	ErrNoUpdate = errors.New("no update in progress")
	// ErrInvalidArgument: an argument or configuration value is out of range.
	ErrInvalidArgument = errs.ErrInvalidArgument
	// ErrInvalidFilter: a metadata filter is malformed or uses an unknown operator.
	ErrInvalidFilter = filter.ErrInvalid
	// ErrDimensionMismatch: a vector's length differs from the index's dimension.
	ErrDimensionMismatch = errors.New("dimension mismatch")
	// ErrEmbeddingsNotConfigured: an operation needs an EmbeddingsModel and none was given.
	ErrEmbeddingsNotConfigured = errors.New("embeddings model not configured")
	// ErrCorrupt: stored bytes could not be decoded.
	ErrCorrupt = errs.ErrCorrupt
	// ErrNotDocumentIndex: the folder holds an index but no document catalog.
	ErrNotDocumentIndex = errors.New("not a document index")
	// ErrPartiallyMigrated: the folder holds the index file of more than one
	// codec, as an interrupted migration leaves it; running the migration
	// again (package migrate) finishes it.
	ErrPartiallyMigrated = errors.New("index is partially migrated")
)

// Errors a TextFetcher that reads web pages wraps, the same whichever
// fetcher read the page (natively or in the browser). Match them with
// [errors.Is].
var (
	// ErrHTTPStatus: the site answered with an unsuccessful status.
	ErrHTTPStatus = errors.New("site returned an error status")
	// ErrContentType: the response's content type is not one the fetcher
	// reads.
	ErrContentType = errors.New("site returned an invalid content type")
	// ErrBodyTooLarge: the response body is over the fetcher's cap.
	ErrBodyTooLarge = errors.New("response body too large")
)

// Error is a failed operation, as fs.PathError is for files: Op names the
// operation ("insert item", "query documents", "create index"),
// Key what it was done to (an item id, a query, a path; "" for nothing in
// particular), and Err what went wrong. Its message is "<op> <key>: <err>"
// (the key quoted) or "<op>: <err>". Sentinels are matched through Unwrap
// with errors.Is; errors.As finds the *Error for its Op and Key.
type Error struct {
	Op  string
	Key string
	Err error
}

func (e *Error) Error() string {
	if e.Key == "" {
		return e.Op + ": " + e.Err.Error()
	}
	return e.Op + " " + strconv.Quote(e.Key) + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// WrapOp is the one funnel of Folio's errors (core, core/manager and
// core/migrate): it returns err as the *Error of operation op on key, except
// that nil is nil and an error caused by ctx ending is returned as ctx's own
// error, unchanged (context.Canceled or context.DeadlineExceeded, not
// wrapped), whatever reported it.
func WrapOp(ctx context.Context, op, key string, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		return ctxErr
	}
	if err == context.Canceled || err == context.DeadlineExceeded {
		return err
	}
	return &Error{Op: op, Key: key, Err: err}
}
