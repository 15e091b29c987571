package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
