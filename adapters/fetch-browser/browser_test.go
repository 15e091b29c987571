//go:build !(js && wasm)

package fetchbrowser_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/foliovec/folio/conformance/browsertest"
)

// TestInBrowser runs this package's browser tests in headless Chromium,
// against a server on 127.0.0.1 that the page reaches cross-origin, with
// CORS headers.
func TestInBrowser(t *testing.T) {
	srv := httptest.NewServer(fixtureServer())
	t.Cleanup(srv.Close)
	browsertest.Run(t, browsertest.Options{Env: []string{"FOLIO_FETCH_SERVER=" + srv.URL}, Args: []string{"-v"}})
}

// fixtureServer answers the browser tests: POST /publish?type=… stores the
// body as a page and answers its path; GET of that path serves it with
// that Content-Type. Fixed pages: /missing (404), /image (image/png),
// /hangup (connection closed), /headers (the X-Folio-Test header received),
// /untyped (no Content-Type), /latin1 (windows-1252 text), /big (3 MiB),
// /slow (answers once the client goes away).
func fixtureServer() http.Handler {
	var mu sync.Mutex
	type page struct{ contentType, body string }
	pages := map[string]page{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions { // the preflight of a request with X-Folio-Test
			w.Header().Set("Access-Control-Allow-Headers", "X-Folio-Test")
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		switch r.URL.Path {
		case "/publish":
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			p := fmt.Sprintf("/page/%d", len(pages))
			pages[p] = page{r.URL.Query().Get("type"), string(body)}
			mu.Unlock()
			fmt.Fprint(w, p)
		case "/missing":
			http.NotFound(w, r)
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			fmt.Fprint(w, "\x89PNG")
		case "/hangup":
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		case "/headers":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, r.Header.Get("X-Folio-Test"))
		case "/untyped":
			w.Header()["Content-Type"] = nil // no sniffing: no header at all
			fmt.Fprint(w, "no type")
		case "/latin1":
			w.Header().Set("Content-Type", "text/plain; charset=windows-1252")
			fmt.Fprint(w, "caf\xe9")
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("x", 3<<20))
		case "/slow":
			w.Header().Set("Content-Type", "text/plain")
			<-r.Context().Done()
		default:
			mu.Lock()
			p, ok := pages[r.URL.Path]
			mu.Unlock()
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", p.contentType)
			fmt.Fprint(w, p.body)
		}
	})
}
