//go:build !(js && wasm)

package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// buildPage lays the example out in a fresh folder as make browser-demo
// does: Folio's JavaScript package (folio.wasm built from ../../js, its
// ES modules, Go's wasm_exec.js, the tokenizer's ranks) and the page's
// files.
func buildPage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s", "-o", filepath.Join(dir, "folio.wasm"), ".")
	cmd.Dir = filepath.Join("..", "..", "js")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build folio.wasm: %v\n%s", err, out)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"index.html": "index.html",
		"app.js":     "app.js",
		filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"):       "wasm_exec.js",
		filepath.Join("..", "..", "adapters", "tokenizer-tiktoken", "o200k_base.tiktoken.gz"): "o200k_base.tiktoken.gz",
	}
	for _, name := range []string{"folio.js", "bridge.js", "transformers.js"} {
		files[filepath.Join("..", "..", "js", "package", name)] = name
	}
	for src, dst := range files {
		copyFile(t, src, filepath.Join(dir, dst))
	}
	return dir
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestPageEndToEnd drives the example page in headless Chromium: it adds
// two documents, searches by rank fusion (the default) and by Vectra's ranking, reads the results from
// the page, reloads it and searches again: the index lives in IndexedDB,
// so the answers are the same. It saves a screenshot; with
// FOLIO_SCREENSHOT set, to that path (how examples/browser/screenshot.png is made).
func TestPageEndToEnd(t *testing.T) {
	if !haveChromium() {
		t.Skip("no Chromium on PATH (make test installs Debian's chromium)")
	}
	dir := buildPage(t)
	article := `<html><body><nav><a href="/">Home</a></nav><h1>Tides</h1><p>The Moon's gravity raises <b>two tidal bulges</b> on Earth.</p></body></html>`
	if err := os.WriteFile(filepath.Join(dir, "tides.html"), []byte(article), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.NoSandbox, chromedp.WindowSize(1000, 1200))
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	p := &pageDriver{t: t, ctx: ctx}
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/index.html")); err != nil {
		t.Fatalf("open the page: %v", err)
	}

	p.waitStatus("Ready.")
	p.click("clear") // keeps reruns in one profile honest
	p.waitStatus("The index is empty.")
	p.add("rivers.txt", "The Danube flows through ten countries on its way to the Black Sea. Rivers carry fresh water.")
	p.add("stars.txt", "Stars burn hydrogen into helium. The Sun is a yellow dwarf star in the Milky Way.")
	if got := p.text("documents"); got != "Indexed: rivers.txt, stars.txt" {
		t.Errorf("documents line = %q", got)
	}
	p.do("fetch a page", chromedp.SetValue(chromedp.ID("url"), srv.URL+"/tides.html"), chromedp.Click(chromedp.ID("add-url")))
	p.waitStatus("Added " + srv.URL + "/tides.html.")
	if tides := p.search("tidal bulges", false); !strings.HasPrefix(tides, srv.URL+"/tides.html score") || !strings.Contains(tides, "# Tides") {
		t.Errorf("search of the fetched page:\n%s\nwant it first, as markdown", tides)
	}
	const question = "Which river flows through ten countries?"
	vector := p.search(question, false)
	if !strings.HasPrefix(vector, "rivers.txt score") || !strings.Contains(vector, "The Danube flows through ten countries") {
		t.Errorf("vector search results:\n%s\nwant rivers.txt first with its passage", vector)
	}
	if !strings.Contains(vector, "passage, score") {
		t.Errorf("search results:\n%s\nwant Folio's passages by default", vector)
	}
	vectra := p.search("hydrogen helium", true)
	if !strings.HasPrefix(vectra, "stars.txt score") || !strings.Contains(vectra, "Stars burn hydrogen") {
		t.Errorf("Vectra's search results:\n%s\nwant stars.txt first", vectra)
	}

	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatalf("reload: %v", err)
	}
	p.waitStatus("Ready.")
	if got := p.text("documents"); got != "Indexed: "+srv.URL+"/tides.html, rivers.txt, stars.txt" {
		t.Errorf("after reload the documents line = %q, want both documents kept in IndexedDB", got)
	}
	if again := p.search(question, false); again != vector {
		t.Errorf("after reload the same search shows\n%s\nbefore it showed\n%s", again, vector)
	}

	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: a PNG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if len(png) < 1000 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot is %d bytes, not a PNG", len(png))
	}
	shot := filepath.Join(t.TempDir(), "browser-demo.png")
	if path := os.Getenv("FOLIO_SCREENSHOT"); path != "" {
		shot = path
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
}

// pageDriver works the example page as a user does; a step that fails
// ends the test.
type pageDriver struct {
	t   *testing.T
	ctx context.Context
}

func (p *pageDriver) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		p.t.Fatalf("%s: %v (status %q)", what, err, p.text("status"))
	}
}

func (p *pageDriver) text(id string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID(id)))
	if err != nil {
		p.t.Fatalf("read #%s: %v", id, err)
	}
	return s
}

func (p *pageDriver) click(id string) {
	p.t.Helper()
	p.do("click #"+id, chromedp.Click(chromedp.ID(id)))
}

// waitStatus waits until the status line is want, failing early when it
// reports a failure.
func (p *pageDriver) waitStatus(want string) {
	p.t.Helper()
	cond := `(() => { const s = document.getElementById('status').textContent; return s === ` + jsString(want) + ` || s.includes(' failed: '); })()`
	ctx, cancel := context.WithTimeout(p.ctx, time.Minute)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond)); err != nil {
		p.t.Fatalf("waiting for status %q: %v", want, err)
	}
	if got := p.text("status"); got != want {
		p.t.Fatalf("status = %q, want %q", got, want)
	}
}

func (p *pageDriver) add(title, text string) {
	p.t.Helper()
	p.do("add "+title,
		chromedp.SetValue(chromedp.ID("title"), title),
		chromedp.SetValue(chromedp.ID("text"), text),
		chromedp.Click(chromedp.ID("add-text")),
	)
	p.waitStatus("Added " + title + ".")
}

// search runs a query and returns the results' text as the page shows it.
func (p *pageDriver) search(query string, vectra bool) string {
	p.t.Helper()
	check := "false"
	if vectra {
		check = "true"
	}
	p.do("search "+query,
		chromedp.SetValue(chromedp.ID("query"), query),
		chromedp.Evaluate[chromedp.Void](`void (document.getElementById('vectra').checked = `+check+`)`),
		chromedp.Click(chromedp.ID("search")),
	)
	p.waitStatus(p.awaitFound())
	return p.text("results")
}

// awaitFound waits for a search to finish and returns its status line.
func (p *pageDriver) awaitFound() string {
	p.t.Helper()
	cond := `(() => { const s = document.getElementById('status').textContent; return s.endsWith(' found.') || s.includes(' failed: '); })()`
	ctx, cancel := context.WithTimeout(p.ctx, time.Minute)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond)); err != nil {
		p.t.Fatalf("waiting for search results: %v", err)
	}
	return p.text("status")
}

// haveChromium reports whether a browser chromedp starts is on PATH.
func haveChromium() bool {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if _, err := exec.LookPath(name); err == nil {
			return true
		}
	}
	return false
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
