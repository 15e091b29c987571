//go:build !(js && wasm)

package main

import (
	"context"
	"encoding/json"
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

// npmPage is a page a web developer writes against the package: it
// imports the package by name, creates a document index in IndexedDB (on
// the first load), adds two documents, and queries; on the second load it
// queries what the first stored. It is TypeScript, checked in strict mode
// against the package's own types.
const npmPage = `import { LocalIndex, LocalDocumentIndex, IndexedDBStorage } from "@foliovec/folio";
import type { EmbeddingsModel, EmbeddingsResponse } from "@foliovec/folio";

const words = (t: string): string[] => t.toLowerCase().match(/[a-z]+/g) ?? [];
const embeddings: EmbeddingsModel = {
  maxTokens: 1000,
  async createEmbeddings(inputs: string | string[]): Promise<EmbeddingsResponse> {
    const list = Array.isArray(inputs) ? inputs : [inputs];
    return {
      status: "success",
      output: list.map((t) => {
        const v: number[] = new Array(32).fill(0);
        for (const w of words(t)) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 32, 7)] += 1;
        return v;
      }),
    };
  },
};

async function run(): Promise<unknown> {
  const first = new URLSearchParams(location.search).get("phase") === "1";
  const storage = new IndexedDBStorage("npm-page");
  const docs = new LocalDocumentIndex({ folderPath: "docs", embeddings, storage });
  const items = new LocalIndex("items", undefined, storage);
  if (first) {
    await docs.createIndex({ version: 1, deleteIfExists: true });
    await docs.upsertDocument("rivers.md", "The Danube flows through ten countries to the Black Sea.");
    await docs.upsertDocument("stars.md", "Stars burn hydrogen into helium in their cores.");
    await items.createIndex({ version: 1, deleteIfExists: true });
    await items.insertItem({ id: "a", vector: [1, 0, 0], metadata: { kind: "x" } });
  }
  const results = await docs.queryDocuments("Which river flows to the Black Sea?", { maxDocuments: 2, isBm25: true, fusion: "rrf" });
  const passages = await results[0].render({ maxTokens: 100 });
  const hits = await items.queryItems([1, 0, 0], "", 1);
  return { uris: results.map((r) => r.uri), passage: passages[0].text, item: hits[0].item.id };
}

run().then(
  (r) => { (window as any).__result = JSON.stringify(r); },
  (e) => { (window as any).__result = JSON.stringify({ error: String(e?.stack ?? e) }); },
);
`

// TestNPMPackage installs the package's tarball (make js-package) into an
// empty folder with npm, type-checks a TypeScript page against its types
// in strict mode (no path mapping: the package is found in node_modules),
// bundles the page with esbuild, serves it on 127.0.0.1 and runs it in
// headless Chromium twice: create, add and query; then, after a reload,
// query what IndexedDB kept.
func TestNPMPackage(t *testing.T) {
	tarball, esbuild, tsc := os.Getenv("FOLIO_JS_PACKAGE"), os.Getenv("FOLIO_ESBUILD"), os.Getenv("FOLIO_TSC")
	if tarball == "" || esbuild == "" || tsc == "" {
		t.Skip("FOLIO_JS_PACKAGE, FOLIO_ESBUILD or FOLIO_TSC is not set (make test builds the package and sets them)")
	}
	if !haveChromium() {
		t.Skip("no Chromium on PATH (make test installs Debian's chromium)")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sh := func(name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	write("package.json", `{"name": "page", "private": true, "type": "module"}`)
	sh("npm", "install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", tarball)
	write("page.ts", npmPage)
	write("tsconfig.json", `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext",
		"moduleResolution": "bundler", "lib": ["es2022", "dom"], "skipLibCheck": false}, "files": ["page.ts"]}`)
	sh(tsc, "-p", ".")
	out := filepath.Join(dir, "dist")
	sh(esbuild, "page.ts", "--bundle", "--format=esm", "--target=es2022", "--log-level=error", "--outfile=dist/app.js")
	// esbuild does not copy what new URL(…, import.meta.url) names: the
	// package's README says to put folio.wasm and o200k_base.tiktoken.gz
	// beside the bundle.
	for _, name := range []string{"folio.wasm", "o200k_base.tiktoken.gz"} {
		raw, err := os.ReadFile(filepath.Join(dir, "node_modules", "@foliovec", "folio", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, "index.html"), []byte(`<!doctype html><meta charset="utf-8"><script type="module" src="app.js"></script>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(out, "*")); len(files) != 4 {
		t.Errorf("dist holds %v; want app.js, folio.wasm, o200k_base.tiktoken.gz and index.html (the in-page model runtime is not bundled)", files)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	t.Cleanup(srv.Close)

	ctx := newBrowser(t)
	type answer struct {
		URIs    []string
		Passage string
		Item    string
		Error   string
	}
	load := func(phase string) answer {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		defer cancel()
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/index.html?phase="+phase)); err != nil {
			t.Fatalf("phase %s: open: %v", phase, err)
		}
		raw, err := chromedp.Run(ctx, chromedp.Poll[string](`window.__result`, chromedp.WithPollingInterval(50*time.Millisecond)))
		if err != nil {
			t.Fatalf("phase %s: %v", phase, err)
		}
		var a answer
		if err := json.Unmarshal([]byte(raw), &a); err != nil || a.Error != "" {
			t.Fatalf("phase %s: %s (%v)", phase, raw, err)
		}
		return a
	}
	first, again := load("1"), load("2")
	if len(first.URIs) == 0 || first.URIs[0] != "rivers.md" || !strings.Contains(first.Passage, "Danube") || first.Item != "a" {
		t.Errorf("first load: %+v, want rivers.md first with its passage and item a", first)
	}
	if strings.Join(again.URIs, ",") != strings.Join(first.URIs, ",") || again.Passage != first.Passage || again.Item != first.Item {
		t.Errorf("after a reload: %+v, want what the first load answered, %+v", again, first)
	}
}
