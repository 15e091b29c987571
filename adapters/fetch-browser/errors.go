package fetchbrowser

import (
	"fmt"

	"github.com/foliovec/folio/core"
)

// The errors of a BrowserWebFetcher's Fetch: core's, as in every fetcher.
var (
	// ErrHTTPStatus matches the error of a response whose status is not
	// 2xx (an *HTTPStatusError).
	ErrHTTPStatus = core.ErrHTTPStatus
	// ErrContentType is the error of a response whose content type is not
	// one a BrowserWebFetcher reads.
	ErrContentType = core.ErrContentType
	// ErrBodyTooLarge is the error of a response body over
	// Options.MaxBodyBytes.
	ErrBodyTooLarge = core.ErrBodyTooLarge
)

// HTTPStatusError is the error of a response that is not ok (a status
// outside 200–299), as Vectra reports it: "HTTP <status>: <statusText>".
// It matches ErrHTTPStatus.
type HTTPStatusError struct {
	URL        string
	StatusCode int
	StatusText string
}

func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("fetch %q: HTTP %d: %s", e.URL, e.StatusCode, e.StatusText)
}

// Is makes errors.Is(err, ErrHTTPStatus) true.
func (e *HTTPStatusError) Is(target error) bool { return target == ErrHTTPStatus }
