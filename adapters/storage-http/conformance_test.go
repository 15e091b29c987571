package storagehttp_test

import (
	"testing"

	"github.com/foliovec/folio/conformance/storagetest"
)

// TestConformance checks the storage's reads against the storage port's
// rules: the suite writes through the disk a host serves, and reads files,
// their existence, versions and ranges over HTTP.
func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t testing.TB) storagetest.Harness {
		h := newHost(t)
		return storagetest.Harness{Storage: served{FileStorage: h.local(t), web: h.storage(t, nil)}, Root: ""}
	}, storagetest.Capabilities{AtomicReplace: true, Confined: true})
}
