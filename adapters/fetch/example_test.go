package fetch_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/foliovec/folio/adapters/fetch"
)

// A FileFetcher walks a folder in name order, skipping binary files, and
// calls back once per file; an index would upsert each.
func ExampleFileFetcher() {
	dir, err := os.MkdirTemp("", "fetch-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for name, text := range map[string]string{
		"README.md":        "# Project\n",
		"docs/guide.txt":   "How to use it.",
		"docs/logo.png":    "\x89PNG\r\n\x1a\n",
		"scripts/Makefile": "all:\n",
	} {
		p := filepath.Join(dir, name)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, []byte(text), 0o644)
	}

	f := fetch.NewFileFetcher(nil)
	ok, err := f.Fetch(context.Background(), dir, func(ctx context.Context, uri, text, docType string) (bool, error) {
		rel, _ := filepath.Rel(dir, uri)
		fmt.Printf("%-17s %-9s %q\n", filepath.ToSlash(rel), docType, text)
		return true, nil // false would stop the walk
	})
	fmt.Println(ok, err)
	// Output:
	// README.md         md        "# Project\n"
	// docs/guide.txt    txt       "How to use it."
	// scripts/Makefile  makefile  "all:\n"
	// true <nil>
}

// A WebFetcher gets a page and reports it as markdown, links made absolute.
func ExampleWebFetcher() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><script>track()</script></head><body>
			<h1>Release notes</h1><p>See the <a href="/changelog">changelog</a>.</p>
			<table><tr><th>Version</th><th align="right">Date</th></tr><tr><td>1.0</td><td>2026-11-25</td></tr></table>
			</body></html>`)
	}))
	defer srv.Close()

	f := fetch.NewWebFetcher(nil)
	_, err := f.Fetch(context.Background(), srv.URL+"/notes", func(ctx context.Context, uri, text, docType string) (bool, error) {
		fmt.Println(docType)
		fmt.Println(strings.ReplaceAll(text, srv.URL, "http://server")) // the test server's address varies
		return true, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// md
	// # Release notes
	//
	// See the [changelog](http://server/changelog).
	//
	// | Version | Date |
	// |---|--:|
	// | 1.0 | 2026-11-25 |
}
