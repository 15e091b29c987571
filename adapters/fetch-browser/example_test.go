package fetchbrowser_test

import (
	"fmt"

	"github.com/foliovec/folio/adapters/fetch-browser"
)

func ExampleHTMLToMarkdown() {
	page := `<h1>Folio</h1><p>Local <b>vector</b> search. <a href="docs/">Docs</a></p><script>track()</script>`
	fmt.Println(fetchbrowser.HTMLToMarkdown(page, "https://example.com/"))
	// Output:
	// # Folio
	//
	// Local
	// **vector**
	// search.
	// [Docs](https://example.com/docs/)
}
