package storageblob_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	storageblob "github.com/foliovec/folio/adapters/storage-blob"
	"github.com/foliovec/folio/adapters/storage-blob/s3test"
	"github.com/foliovec/folio/conformance/reference"
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
// mix); the storage reads again then, so file:// claims AtomicReplace.
func TestConformanceFile(t *testing.T) {
	storagetest.Run(t, func(t testing.TB) storagetest.Harness {
		url := "file://" + filepath.ToSlash(t.TempDir())
		return storagetest.Harness{
			Storage: openStorage(t, url),
			Root:    "",
			Reopen:  func() core.FileStorage { return openStorage(t, url) },
		}
	}, storagetest.Capabilities{Persistent: true, AtomicReplace: true})
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

// Reads racing a writer that replaces one object without pause never fail
// and never see a mix, on file:// (whose driver writes an object's
// attributes in place beside it: 40 % of such reads failed with io.EOF
// before the storage read again) and on the S3 protocol: ReadFile,
// OpenFileRange with ReadRange, and FileVersion.
func TestReadsRacingReplacements(t *testing.T) {
	srv := s3test.NewServer(t, "folio")
	for name, url := range map[string]string{"file": "file://" + filepath.ToSlash(t.TempDir()), "s3": srv.BucketURL("folio")} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			s := openStorage(t, url)
			version := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, 1000+i%7) }
			if err := s.CreateFolder(ctx, "ix"); err != nil {
				t.Fatal(err)
			}
			if err := s.UpsertFile(ctx, "ix/m", version(0)); err != nil {
				t.Fatal(err)
			}
			var stop atomic.Bool
			var wg sync.WaitGroup
			wg.Go(func() {
				for i := 1; !stop.Load(); i++ {
					if err := s.UpsertFile(ctx, "ix/m", version(i)); err != nil {
						t.Error(err)
						return
					}
				}
			})
			deadline := time.Now().Add(time.Second)
			reads := 0
			for ; time.Now().Before(deadline); reads++ {
				b, err := s.ReadFile(ctx, "ix/m")
				if err != nil {
					t.Fatalf("read %d: %v", reads, err)
				}
				if len(b) < 1000 || !bytes.Equal(b, bytes.Repeat(b[:1], len(b))) {
					t.Fatalf("read %d: a mix of versions: %.20q…", reads, b)
				}
				if _, err := s.FileVersion(ctx, "ix/m"); err != nil {
					t.Fatalf("file version %d: %v", reads, err)
				}
				rf, err := s.OpenFileRange(ctx, "ix/m")
				if err != nil {
					t.Fatalf("open range %d: %v", reads, err)
				}
				part := make([]byte, 10)
				if err := rf.ReadRange(ctx, part, 990); err != nil {
					t.Fatalf("read range %d: %v", reads, err)
				}
				rf.Close()
			}
			stop.Store(true)
			wg.Wait()
			t.Logf("%d reads of each kind", reads)
		})
	}
}

// A reader of a segmented index over a bucket, on file:// and the S3
// protocol, queries while a writer on another storage value (another
// process, as far as the bucket can tell) commits 200-item batches: every
// query succeeds (10 of about 3,000 failed with `read file
// "ix/index.json.segments": EOF` on file:// before torn reads were read
// again), and the reader ends with every item the writer committed.
func TestIndexReaderDuringCommitsOverABucket(t *testing.T) {
	srv := s3test.NewServer(t, "folio")
	for name, url := range map[string]string{"file": "file://" + filepath.ToSlash(t.TempDir()), "s3": srv.BucketURL("folio")} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			open := func() *core.LocalIndex {
				ix, err := core.NewLocalIndex("ix", core.IndexOptions{Storage: openStorage(t, url), Codec: reference.Codec{}, FreshnessInterval: time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				return ix
			}
			w := open()
			if err := w.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented}); err != nil {
				t.Fatal(err)
			}
			const batches, size, d = 40, 200, 16
			vec := func(i int) []float32 {
				v := make([]float32, d)
				v[i%d], v[(i/d)%d] = 1, 0.5
				return v
			}
			r := open()
			var done atomic.Bool
			var wg sync.WaitGroup
			wg.Go(func() {
				defer done.Store(true)
				for b := range batches {
					items := make([]core.IndexItem, size)
					for i := range items {
						n := b*size + i
						items[i] = core.IndexItem{ID: fmt.Sprint("item-", n), Vector: vec(n)}
					}
					if _, err := w.BatchInsertItems(ctx, items); err != nil {
						t.Error(err)
						return
					}
				}
			})
			queries := 0
			for ; !done.Load(); queries++ {
				if _, err := r.QueryItems(ctx, vec(queries), "", 5, nil, false); err != nil {
					t.Fatalf("query %d during the commits: %v", queries, err)
				}
			}
			wg.Wait()
			time.Sleep(5 * time.Millisecond) // past the reader's freshness interval
			st, err := r.GetIndexStats(ctx)
			if err != nil || st.Items != batches*size {
				t.Fatalf("the reader ends with %d items (%v), want %d", st.Items, err, batches*size)
			}
			t.Logf("%d queries during %d commits", queries, batches)
		})
	}
}
