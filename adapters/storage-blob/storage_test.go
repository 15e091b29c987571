package storageblob_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
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

// An error opening a bucket never shows the URL's query.
func TestOpenErrorHidesTheQuery(t *testing.T) {
	for _, url := range []string{"nosuch://bucket?secret=hunter2", "s3://?token=hunter2"} {
		_, err := storageblob.Open(t.Context(), url)
		if err == nil {
			t.Fatalf("Open(%q) succeeded", url)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q): %v shows the query", url, err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := storageblob.Open(ctx, "mem://"); !errors.Is(err, context.Canceled) {
		t.Errorf("Open with a cancelled context: %v", err)
	}
}

// Two storage values (as two processes) creating one key on S3: the
// store's conditional write lets exactly one succeed, every time.
func TestCreateFileIsExclusiveAcrossClients(t *testing.T) {
	srv := s3test.NewServer(t, "folio")
	a, b := openStorage(t, srv.BucketURL("folio")), openStorage(t, srv.BucketURL("folio"))
	if err := a.CreateFolder(t.Context(), "ix"); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		path := fmt.Sprintf("ix/catalog-%d.json", i)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for j, s := range []*storageblob.Storage{a, b} {
			wg.Go(func() { errs[j] = s.CreateFile(t.Context(), path, []byte{byte(j)}) })
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, fs.ErrExist):
				t.Fatalf("%s: %v, want fs.ErrExist", path, err)
			}
		}
		if ok != 1 {
			t.Fatalf("%s: %d creators succeeded, want 1", path, ok)
		}
	}
}
