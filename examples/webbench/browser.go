package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// benchPage is the page the browser runs: it loads Folio's JavaScript
// package, opens the index over HttpFileStorage, and answers each query
// webbench asks with window.ask(i), reporting its time in the page.
const benchPage = `<!doctype html>
<meta charset="utf-8">
<script type="module">
  const t0 = performance.now();
  const lib = await import("./folio.js");
  const loaded = performance.now() - t0;
  const queries = await (await fetch("queries.json")).json();
  const params = new URLSearchParams(location.search);
  let index;
  window.ask = async (i) => {
    const t = performance.now();
    if (!index) {
      index = new lib.LocalIndex(params.get("folder"), undefined, new lib.HttpFileStorage("/"), { extension: ".pb" }, { partitions: true });
    }
    const results = await index.queryItems(queries[i], "", 10);
    return { ms: performance.now() - t, ids: results.map((r) => r.item.id), scores: results.map((r) => r.score) };
  };
  window.__ready = JSON.stringify({ loaded });
</script>
`

// page lays out Folio's JavaScript package and the bench page in a new
// folder: folio.wasm built from ../js, its modules, Go's wasm_exec.js.
func page(queries [][]float32) (string, error) {
	dir, err := os.MkdirTemp("", "webbench-page-")
	if err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s", "-o", filepath.Join(dir, "folio.wasm"), ".")
	build.Dir = filepath.Join("..", "js")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build folio.wasm: %v\n%s", err, out)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", err
	}
	files := map[string]string{
		filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"): "wasm_exec.js",
		filepath.Join("..", "adapters", "tokenizer-tiktoken", "o200k_base.tiktoken.gz"): "o200k_base.tiktoken.gz",
	}
	for _, name := range []string{"folio.js", "bridge.js", "transformers.js"} {
		files[filepath.Join("..", "js", "package", name)] = name
	}
	for src, dst := range files {
		b, err := os.ReadFile(src)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o644); err != nil {
			return "", err
		}
	}
	qs, err := json.Marshal(queries)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "queries.json"), qs, 0o644); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "web.html"), []byte(benchPage), 0o644)
}

// answer is one query's answer in the page.
type answer struct {
	Ms     float64
	IDs    []string
	Scores []float64
}

// inBrowser asks the queries from headless Chromium: the page at pageURL,
// the index folder at the site's root. wire counts the index's requests
// and bytes (the page's own files are not counted).
func inBrowser(ctx context.Context, pageURL, folder string, n int, wire func() counts) (loaded time.Duration, first answer, firstWire counts, later []answer, laterWire []counts, err error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.NoSandbox)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err = chromedp.Do(bctx, chromedp.Navigate(pageURL+"?folder="+folder)); err != nil {
		return
	}
	ready, err := chromedp.Run(bctx, chromedp.Poll[string](`window.__ready`, chromedp.WithPollingInterval(20*time.Millisecond)))
	if err != nil {
		return
	}
	var r struct{ Loaded float64 }
	if err = json.Unmarshal([]byte(ready), &r); err != nil {
		return
	}
	loaded = time.Duration(r.Loaded * float64(time.Millisecond))
	ask := func(i int) (answer, counts, error) {
		before := wire()
		a, err := chromedp.Run(bctx, chromedp.Evaluate[answer](fmt.Sprintf("window.ask(%d)", i), chromedp.EvalAwaitPromise))
		return a, wire().minus(before), err
	}
	if first, firstWire, err = ask(0); err != nil {
		return
	}
	for i := 1; i < n; i++ {
		a, c, e := ask(i)
		if e != nil {
			err = e
			return
		}
		later, laterWire = append(later, a), append(laterWire, c)
	}
	return
}

// sitePrefix is where the front server serves the page's files; anything
// else is the index folder's host.
const sitePrefix = "/page/"

// pageHandler serves the page's folder.
func pageHandler(dir string) http.Handler {
	return http.StripPrefix(sitePrefix, http.FileServer(http.Dir(dir)))
}
