//go:build !(js && wasm)

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// site is the JavaScript package built into a folder and served on
// 127.0.0.1 with the test pages, as a user serves it.
type site struct {
	dir string
	url string
}

var (
	buildOnce sync.Once
	builtDir  string
	buildErr  error
)

// rankFile is the tokenizer's ranks, which the package serves beside
// folio.wasm.
var rankFile = filepath.Join("..", "adapters", "tokenizer-tiktoken", "o200k_base.tiktoken.gz")

// buildPackage builds folio.wasm once per test run and lays out the
// package beside the test pages: folio.js, transformers.js, folio.d.ts,
// wasm_exec.js, o200k_base.tiktoken.gz, and onnxruntime-web's files when FOLIO_ORT_WEB names them.
func buildPackage(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "folio-js-")
		if err != nil {
			buildErr = err
			return
		}
		builtDir = dir
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s", "-o", filepath.Join(dir, "folio.wasm"), ".")
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build folio.wasm: %v\n%s", err, out)
			return
		}
		goroot, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			buildErr = err
			return
		}
		files := map[string]string{
			filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"): "wasm_exec.js",
			rankFile: "o200k_base.tiktoken.gz",
		}
		for _, glob := range []string{"package/*", "testdata/*"} {
			matches, _ := filepath.Glob(glob)
			for _, m := range matches {
				if info, err := os.Stat(m); err == nil && !info.IsDir() {
					files[m] = filepath.Base(m)
				}
			}
		}
		if ort := os.Getenv("FOLIO_ORT_WEB"); ort != "" {
			matches, _ := filepath.Glob(filepath.Join(ort, "*"))
			for _, m := range matches {
				files[m] = filepath.Base(m)
			}
		}
		if bundle := os.Getenv("FOLIO_VECTRA_BROWSER_BUNDLE"); bundle != "" {
			files[bundle] = "vectra.js"
		}
		for src, dst := range files {
			b, err := os.ReadFile(src)
			if err != nil {
				buildErr = err
				return
			}
			if err := os.WriteFile(filepath.Join(dir, dst), b, 0o644); err != nil {
				buildErr = err
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// newSite serves the package; extra handlers (an embeddings server, a
// page to fetch) are mounted beside it.
func newSite(t testing.TB, extra map[string]http.Handler) *site {
	t.Helper()
	if !haveChromium() {
		t.Skip("no Chromium on PATH (make test installs Debian's chromium)")
	}
	dir := buildPackage(t)
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(dir)))
	for p, h := range extra {
		mux.Handle(p, h)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &site{dir: dir, url: srv.URL}
}

// browser is one headless Chromium with its own profile, so IndexedDB
// persists across page loads within a test and not between tests.
func newBrowser(t testing.TB) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.NoSandbox, chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	// Start it now: a browser lives as long as the context of its first
	// action, and runPage's actions have shorter ones.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// runPage loads page.html with the query parameters and decodes the test
// module's result into out; a thrown error fails the test.
func (s *site) runPage(t testing.TB, ctx context.Context, params map[string]string, out any) {
	t.Helper()
	q := url.Values{}
	for k, v := range params {
		q.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url+"/page.html?"+q.Encode())); err != nil {
		t.Fatalf("open page %v: %v", params, err)
	}
	result, err := chromedp.Run(ctx, chromedp.Poll[string](`window.__result`, chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil {
		t.Fatalf("page %v: %v", params, err)
	}
	var failed struct{ Error string }
	if json.Unmarshal([]byte(result), &failed) == nil && failed.Error != "" {
		t.Fatalf("page %v threw: %s", params, failed.Error)
	}
	if err := json.Unmarshal([]byte(result), out); err != nil {
		t.Fatalf("page %v result %s: %v", params, result, err)
	}
}

func haveChromium() bool {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if _, err := exec.LookPath(name); err == nil {
			return true
		}
	}
	return false
}

// A server without the tokenizer's rank file still serves a page that
// only indexes vectors; tokenizing there fails, naming the file.
func TestPageWithoutTheRankFile(t *testing.T) {
	s := newSite(t, map[string]http.Handler{"/o200k_base.tiktoken.gz": http.NotFoundHandler()})
	var r struct {
		Hits           []string
		Encode, Upsert string
	}
	s.runPage(t, newBrowser(t), map[string]string{"test": "norank", "lib": "folio"}, &r)
	if !slices.Equal(r.Hits, []string{"a", "b"}) {
		t.Errorf("hits = %v, want [a b]", r.Hits)
	}
	for what, msg := range map[string]string{"GPT3Tokenizer.encode": r.Encode, "upsertDocument": r.Upsert} {
		if !strings.Contains(msg, "o200k_base.tiktoken.gz") || !strings.Contains(msg, "HTTP 404") {
			t.Errorf("%s without the rank file: %q, want an error naming the file and the 404", what, msg)
		}
	}
}
