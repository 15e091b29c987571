package acceptance_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/foliovec/folio"
	"github.com/foliovec/folio/core"
)

// openFixture copies a fixture folder to a temporary folder (fixtures are
// read-only) and opens the index there with codec, on the local file
// system through the facade's defaults.
func openFixture(t testing.TB, dir string, codec core.IndexCodec) *core.LocalIndex {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(dir))
	if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	ix, err := folio.NewLocalIndex(dst, &folio.IndexOptions{Codec: codec})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}
