package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
)

// A web page that never answers does not stall `folio add`: it fails after
// --timeout, is reported, and the other URIs of the list are still added.
func TestAddTimesOutASilentPage(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("a page that answers at once"))
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	dir := t.TempDir()
	must(t, dir, 0, "create", "ix", "--hash-dims", "16")
	list := filepath.Join(dir, "urls.txt")
	if err := os.WriteFile(list, []byte(srv.URL+"/silent\n"+srv.URL+"/ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := must(t, dir, 1, "add", "ix", "--list", list, "--timeout", "300ms")
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("add took %v with a 300 ms timeout", took)
	}
	if !strings.Contains(r.stderr, "timed out") || !strings.Contains(r.stderr, "/silent") {
		t.Errorf("stderr does not report the timed-out page:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "added 1 ") {
		t.Errorf("the page that answered was not added:\n%s", r.stdout)
	}
}

// `folio serve --root` answers every call while `folio add` re-adds
// changed files into one of its indexes: a commit's dropped files outlive
// the readers that may still name them, so no call fails.
func TestServeRootWhileAddReplacesDocuments(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "indexes")
	docsDir := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(round int) {
		for i := range 8 {
			text := strings.Repeat(fmt.Sprintf("Round %d of document %d about rockets, cats and bread. ", round, i), 30)
			if err := os.WriteFile(filepath.Join(docsDir, fmt.Sprintf("d%d.md", i)), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(0)
	must(t, dir, 0, "create", filepath.Join("indexes", "ix"), "--hash-dims", "64")
	must(t, dir, 0, "add", filepath.Join("indexes", "ix"), "--uri", docsDir)
	port := freePort(t)
	pidFile := filepath.Join(dir, "folio.pid")
	must(t, dir, 0, "serve", "--root", root, "--hash-dims", "64", "--port", fmt.Sprint(port), "--daemon", "--pid-file", pidFile)
	t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pidFile).Run() })
	client, ctx := dialServer(t, port)

	stop := make(chan struct{})
	var calls, failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				calls.Add(1)
				_, err := client.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "ix", Query: "rockets cats bread", MaxDocuments: 5})
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}
		})
	}
	for round := 1; round <= 6; round++ {
		write(round)
		must(t, dir, 0, "add", filepath.Join("indexes", "ix"), "--uri", docsDir)
	}
	close(stop)
	wg.Wait()
	t.Logf("%d calls during 6 re-adds, %d failed", calls.Load(), failed.Load())
	if failed.Load() != 0 {
		t.Fatalf("%d of %d calls failed during the re-adds; first: %v", failed.Load(), calls.Load(), firstErr.Load())
	}
}
