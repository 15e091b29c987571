//go:build !(js && wasm)

package storageidb_test

import (
	"testing"

	"github.com/foliovec/folio/conformance/browsertest"
)

// TestInBrowser runs this package's tests, which need IndexedDB, in
// headless Chromium.
func TestInBrowser(t *testing.T) {
	browsertest.Run(t, browsertest.Options{})
}
