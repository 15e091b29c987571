//go:build !(js && wasm)

package browser_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/foliovec/folio/conformance/browsertest"
)

// TestInBrowser runs this package's browser tests in headless Chromium.
// Vectra's browser build, bundled by make vectra-browser, is served to the
// page for the interop cases when FOLIO_VECTRA_BROWSER_BUNDLE names it.
func TestInBrowser(t *testing.T) {
	var env []string
	if bundle := os.Getenv("FOLIO_VECTRA_BROWSER_BUNDLE"); bundle != "" {
		if _, err := os.Stat(bundle); err != nil {
			t.Fatalf("FOLIO_VECTRA_BROWSER_BUNDLE: %v (make vectra-browser builds it)", err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			http.ServeFile(w, r, bundle)
		}))
		t.Cleanup(srv.Close)
		env = append(env, "FOLIO_VECTRA_BUNDLE_URL="+srv.URL+"/vectra.js")
	}
	browsertest.Run(t, browsertest.Options{Env: env, Args: []string{"-v"}})
}
