// Package fetchbrowser reads web pages from a browser: [BrowserWebFetcher]
// is a core.TextFetcher over the page's own fetch, as Vectra 0.15's
// BrowserWebFetcher is, so requests carry the page's origin, cookies (by
// its credentials mode) and CORS rules. It builds for GOOS=js GOARCH=wasm;
// on other platforms the package holds only [HTMLToMarkdown] and the
// errors.
//
// The fetcher lives apart from package fetch, whose file and Go HTTP
// fetchers (and their HTML converter) a browser build does not need.
//
// # Concurrency
//
// A BrowserWebFetcher and HTMLToMarkdown are safe for concurrent use.
//
// # Errors
//
// A response that is not ok is an *HTTPStatusError matching ErrHTTPStatus;
// an unsupported content type matches ErrContentType, a body over the cap
// ErrBodyTooLarge, a uri that is not http or https core.ErrInvalidArgument.
// A network or CORS failure is the browser's error ("Failed to fetch").
// When ctx ends, the request is aborted and ctx's error returned wrapped.
package fetchbrowser
