//go:build js && wasm

package fetchbrowser_test

import (
	"context"
	"fmt"

	"github.com/foliovec/folio/adapters/fetch-browser"
)

// A page fetched with the browser's fetch, cookies included, its HTML
// reported as markdown.
func ExampleNew() {
	fetcher := fetchbrowser.New(&fetchbrowser.Options{Credentials: "include"})
	_, err := fetcher.Fetch(context.Background(), "https://example.com/", func(ctx context.Context, uri, text, docType string) (bool, error) {
		fmt.Println(uri, docType, len(text))
		return true, nil
	})
	if err != nil {
		fmt.Println(err)
	}
}
