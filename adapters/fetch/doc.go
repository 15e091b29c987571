// Package fetch reads documents for a document index: [FileFetcher] from
// files and folders, [WebFetcher] from web pages. Both are
// [core.TextFetcher]s, Vectra 0.15's FileFetcher and WebFetcher with their
// data-losing and memory-exhausting edges fixed.
//
// A fetcher calls back once per document with its uri, text and docType;
// the callback usually upserts it:
//
//	f := fetch.NewFileFetcher(nil)
//	_, err := f.Fetch(ctx, "docs", func(ctx context.Context, uri, text, docType string) (bool, error) {
//		_, err := index.UpsertDocument(ctx, uri, text, docType, nil, nil)
//		return err == nil, err
//	})
//
// The callback returning false stops the walk and Fetch returns false; its
// error stops the walk and is returned. Text is always valid UTF-8: each
// invalid byte of a file reads as U+FFFD, and web pages are decoded from
// their declared charset.
//
// # Concurrency
//
// Fetchers hold no state between calls: one fetcher may run any number of
// Fetch calls at once. A Fetch calls back from the goroutine that called
// it, one document at a time.
//
// # Errors
//
// A cancelled or expired ctx ends Fetch with ctx's error (wrapped; errors.Is
// finds context.Canceled or context.DeadlineExceeded). WebFetcher's errors
// wrap [ErrHTTPStatus] (through [*HTTPStatusError]), [ErrContentType],
// [ErrBodyTooLarge] or [ErrTooManyRedirects]; file errors wrap the
// operating system's (fs.ErrPermission, …).
package fetch
