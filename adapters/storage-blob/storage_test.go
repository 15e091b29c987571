package storageblob_test

import (
	"fmt"
	"path/filepath"
	"testing"

	storageblob "github.com/foliovec/folio/adapters/storage-blob"
	"github.com/foliovec/folio/adapters/storage-blob/s3test"
	"github.com/foliovec/folio/conformance/storagetest"
	"github.com/foliovec/folio/core"
)

var caps = storagetest.Capabilities{AtomicReplace: true, Persistent: true}

// openStorage opens bucketURL and closes it when the test ends.
func openStorage(t testing.TB, bucketURL string) *storageblob.Storage {
	t.Helper()
	s, err := storageblob.Open(t.Context(), bucketURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformanceMem(t *testing.T) {
	storagetest.Run(t, func(t testing.TB) storagetest.Harness {
		s := openStorage(t, "mem://")
		return storagetest.Harness{Storage: s, Root: "", Reopen: func() core.FileStorage { return s }}
	}, storagetest.Capabilities{AtomicReplace: true})
}

// gocloud's file:// driver writes an object's attributes beside it in a
// second file, so a read racing a replacement can fail (it never returns a
// mix): file:// does not claim AtomicReplace.
func TestConformanceFile(t *testing.T) {
	storagetest.Run(t, func(t testing.TB) storagetest.Harness {
		url := "file://" + filepath.ToSlash(t.TempDir())
		return storagetest.Harness{
			Storage: openStorage(t, url),
			Root:    "",
			Reopen:  func() core.FileStorage { return openStorage(t, url) },
		}
	}, storagetest.Capabilities{Persistent: true})
}

func TestConformanceS3(t *testing.T) {
	srv := s3test.NewServer(t, "folio")
	n := 0
	storagetest.Run(t, func(t testing.TB) storagetest.Harness {
		// Each case gets a prefix of its own in the one bucket.
		n++
		url := srv.BucketURL("folio", "prefix="+filepath.Base(t.Name())+fmt.Sprint(n)+"/")
		return storagetest.Harness{
			Storage: openStorage(t, url),
			Root:    "",
			Reopen:  func() core.FileStorage { return openStorage(t, url) },
		}
	}, caps)
}
