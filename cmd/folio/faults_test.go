package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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

// One index whose manifest a careless hand edited (rows: 2^40) cannot take
// `folio serve --root` down: its calls answer DATA_LOSS naming the
// segment, every other index answers as before and after, and the server's
// peak memory stays under 200 MB (the edit ran it out of memory on the
// first query to that index, taking every index with it).
func TestServeRootWithAHostileManifest(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	root := filepath.Join(dir, "indexes")
	for _, name := range []string{"good", "edited"} {
		must(t, dir, 0, "create", filepath.Join("indexes", name), "--format", "segmented", "--hash-dims", "32")
		must(t, dir, 0, "add", filepath.Join("indexes", name), "--uri", "docs")
	}
	manifest := filepath.Join(root, "edited", "index.pb.segments")
	raw, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	edited := regexp.MustCompile(`"rows": \d+`).ReplaceAll(raw, []byte(`"rows": 1099511627776`))
	if bytes.Equal(edited, raw) {
		t.Fatalf("no rows to edit in the manifest:\n%s", raw)
	}
	if err := os.WriteFile(manifest, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	pidFile := filepath.Join(dir, "folio.pid")
	must(t, dir, 0, "serve", "--root", root, "--hash-dims", "32", "--port", fmt.Sprint(port), "--daemon", "--pid-file", pidFile)
	t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pidFile).Run() })
	client, ctx := dialServer(t, port)
	query := func(name string) error {
		_, err := client.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: name, Query: "rocket thrust fuel", MaxDocuments: 1})
		return err
	}
	if err := query("good"); err != nil {
		t.Fatalf("the intact index before: %v", err)
	}
	for range 3 {
		err := query("edited")
		if status.Code(err) != codes.DataLoss || !strings.Contains(err.Error(), ".seg") {
			t.Fatalf("the edited index: %v, want DATA_LOSS naming its segment", err)
		}
		if _, err := client.GetIndexStats(ctx, &vectrapb.GetIndexStatsRequest{IndexName: "edited"}); status.Code(err) != codes.DataLoss {
			t.Fatalf("stats of the edited index: %v, want DATA_LOSS", err)
		}
	}
	if err := query("good"); err != nil {
		t.Fatalf("the intact index after: %v", err)
	}
	pid, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	proc, err := os.ReadFile(filepath.Join("/proc", strings.TrimSpace(string(pid)), "status"))
	if err != nil {
		t.Logf("the server's memory is not checked: no /proc to read it from (%v)", err)
		return
	}
	var peakKB int
	for _, line := range strings.Split(string(proc), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &peakKB)
		}
	}
	if peakKB == 0 || peakKB > 200<<10 {
		t.Fatalf("the server's peak resident memory: %d kB, want under 200 MB", peakKB)
	}
	t.Logf("peak resident memory %d MB", peakKB>>10)
}
