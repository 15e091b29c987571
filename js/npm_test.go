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

// TestNPMReadmeSample pastes the package README's sample, as it is, into
// an empty folder: npm installs the tarball the README says to build, esbuild
// bundles the sample (the files the README says to put beside the bundle
// copied there), and headless Chromium runs it. It answers with the
// README's own offline model, no embedder written by hand: rivers.md first
// for the river question, its passage holding the answer, and Vectra's
// sections too. A line the test adds after the sample reports what it
// found.
func TestNPMReadmeSample(t *testing.T) {
	tarball, esbuild := os.Getenv("FOLIO_JS_PACKAGE"), os.Getenv("FOLIO_ESBUILD")
	if tarball == "" || esbuild == "" {
		t.Skip("FOLIO_JS_PACKAGE or FOLIO_ESBUILD is not set (make test builds the package and sets them)")
	}
	if !haveChromium() {
		t.Skip("no Chromium on PATH (make test installs Debian's chromium)")
	}
	readme, err := os.ReadFile(filepath.Join("npm", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := fencedBlocks(string(readme))
	if len(blocks["sh"]) == 0 || len(blocks["js"]) == 0 {
		t.Fatalf("the README has no sh or js sample: %v", blocks)
	}
	if !strings.Contains(blocks["sh"][0], "npm install /path/to/folio/.cache/js-package/foliovec-folio-") {
		t.Fatalf("the README's first command block does not install the tarball:\n%s", blocks["sh"][0])
	}
	sample := blocks["js"][0]
	if strings.Contains(sample, "embedSomehow") || strings.Contains(sample, "createEmbeddings(") {
		t.Fatalf("the README's sample writes its own embedder:\n%s", sample)
	}
	dir := t.TempDir()
	sh := func(name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name": "page", "private": true, "type": "module"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	sh("npm", "install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", tarball)
	// The package's licence, and the notices of what it ships.
	pkg := filepath.Join(dir, "node_modules", "@foliovec", "folio")
	var manifest struct{ License string }
	if raw, err := os.ReadFile(filepath.Join(pkg, "package.json")); err != nil || json.Unmarshal(raw, &manifest) != nil || manifest.License != "Apache-2.0" {
		t.Errorf("the package's licence is %q (%v), want Apache-2.0", manifest.License, err)
	}
	notices, err := os.ReadFile(filepath.Join(pkg, "THIRD_PARTY_NOTICES"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Apache License", "Go 1.", "google.golang.org/protobuf", "github.com/pkoukk/tiktoken-go", "o200k_base.tiktoken.gz", "OpenAI"} {
		if !strings.Contains(string(notices), want) {
			t.Errorf("THIRD_PARTY_NOTICES does not mention %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(pkg, "LICENSE")); err != nil {
		t.Error(err)
	}
	probe := "\nwindow.__result = JSON.stringify({ uri: results[0].uri, passage: passages[0].text, vectra: vectra.map((r) => r.uri), sections: sections.length });\n"
	if err := os.WriteFile(filepath.Join(dir, "page.js"), []byte(sample+probe), 0o644); err != nil {
		t.Fatal(err)
	}
	sh(esbuild, "page.js", "--bundle", "--format=esm", "--target=es2022", "--log-level=error", "--outfile=dist/app.js")
	out := filepath.Join(dir, "dist")
	for _, name := range []string{"folio.wasm", "o200k_base.tiktoken.gz"} {
		raw, err := os.ReadFile(filepath.Join(dir, "node_modules", "@foliovec", "folio", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page := `<!doctype html><meta charset="utf-8"><script type="module">import("./app.js").catch((e) => { window.__result = JSON.stringify({ error: String(e?.stack ?? e) }); });</script>`
	if err := os.WriteFile(filepath.Join(out, "index.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(newBrowser(t), 3*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/index.html")); err != nil {
		t.Fatal(err)
	}
	raw, err := chromedp.Run(ctx, chromedp.Poll[string](`window.__result`, chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		URI, Passage, Error string
		Vectra              []string
		Sections            int
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil || got.Error != "" {
		t.Fatalf("the sample failed: %s (%v)", raw, err)
	}
	if got.URI != "rivers.md" || !strings.Contains(got.Passage, "Black Sea") || len(got.Vectra) == 0 || got.Vectra[0] != "rivers.md" || got.Sections != 1 {
		t.Fatalf("the sample answered %+v, want rivers.md with its passage, from both queries", got)
	}
}

// fencedBlocks returns the fenced code blocks of a Markdown text by their
// language, in order.
func fencedBlocks(md string) map[string][]string {
	out := map[string][]string{}
	var lang string
	var block []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		switch {
		case !in && strings.HasPrefix(line, "```"):
			in, lang, block = true, strings.TrimSpace(strings.TrimPrefix(line, "```")), nil
		case in && strings.HasPrefix(line, "```"):
			in = false
			out[lang] = append(out[lang], strings.Join(block, "\n")+"\n")
		case in:
			block = append(block, line)
		}
	}
	return out
}
