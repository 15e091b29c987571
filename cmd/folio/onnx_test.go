//go:build cgo

package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliovec/folio"
	embedonnx "github.com/foliovec/folio/adapters/embed-onnx"
	"github.com/foliovec/folio/core"
)

// onnxLibrary points the binary at the ONNX Runtime library that `make
// onnxruntime` installs in this checkout, unless the environment names one.
func onnxLibrary(t *testing.T) {
	t.Helper()
	if os.Getenv(embedonnx.LibraryPathEnv) != "" {
		return
	}
	libs, _ := filepath.Glob(filepath.Join("..", "..", ".cache", "onnxruntime", embedonnx.RuntimeVersion, "libonnxruntime*"))
	if len(libs) == 0 {
		t.Fatalf("no ONNX Runtime library: run `make onnxruntime` or set $%s", embedonnx.LibraryPathEnv)
	}
	lib, err := filepath.Abs(libs[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(embedonnx.LibraryPathEnv, lib)
}

// A local ONNX model folder (a tiny random BERT standing in for a download)
// drives create, add and query; the index remembers the folder by its
// absolute path, and its vectors are the model's.
func TestLocalONNXModel(t *testing.T) {
	onnxLibrary(t)
	dir := t.TempDir()
	docs := writeDocs(t, dir)
	gen := exec.CommandContext(t.Context(), "go", "run", "github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen/tinymodel", filepath.Join(dir, "model"))
	if b, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("tinymodel: %v\n%s", err, b)
	}

	must(t, dir, 0, "create", "ix", "--model", "model")
	// --bare-chunks: each vector is the model's embedding of a chunk's
	// text alone, which the end of the test computes again.
	added := decode[map[string]any](t, must(t, dir, 0, "add", "ix", "--uri", "docs", "--bare-chunks", "--json"))
	if added["documents"] != float64(3) {
		t.Fatalf("add: %v", added)
	}
	stats := decode[map[string]any](t, must(t, dir, 0, "stats", "ix", "--json"))
	if m, _ := stats["model"].(map[string]any); m["kind"] != "onnx" || m["name"] != filepath.Join(dir, "model") {
		t.Errorf("stats names the model %v, want the folder's absolute path", stats["model"])
	}
	// From another working directory, with no model flag.
	elsewhere := t.TempDir()
	q := decode[queryOutput](t, must(t, elsewhere, 0, "query", filepath.Join(dir, "ix"), "cats purr", "--json"))
	if len(q.Results) == 0 {
		t.Fatalf("query: %+v", q)
	}
	if r := must(t, dir, 1, "query", "ix", "cats", "--hash-dims", "32"); !strings.Contains(r.stderr, "onnx") || !strings.Contains(r.stderr, "hash 32") {
		t.Errorf("another model: %q does not name both", r.stderr)
	}

	// Every stored vector is the model's embedding of one document's text.
	m := embedonnx.NewLocalEmbeddings(&embedonnx.LocalOptions{Model: filepath.Join(dir, "model")})
	defer m.Close()
	texts := make([]string, 0, len(docs))
	for _, text := range docs {
		texts = append(texts, text)
	}
	want, err := m.CreateEmbeddings(t.Context(), texts)
	if err != nil || want.Status != core.EmbeddingsSuccess {
		t.Fatalf("embeddings: %v, %v", want, err)
	}
	ix, err := folio.NewLocalIndex(filepath.Join(dir, "ix"), nil)
	if err != nil {
		t.Fatal(err)
	}
	items, err := ix.ListItems(t.Context())
	if err != nil || len(items) != len(docs) {
		t.Fatalf("%d items, %v; want %d", len(items), err, len(docs))
	}
	for _, it := range items {
		matched := false
		for _, w := range want.Output {
			diff := 0.0
			for i := range w {
				diff = max(diff, math.Abs(float64(w[i]-it.Vector[i])))
			}
			matched = matched || (len(w) == len(it.Vector) && diff < 1e-5)
		}
		if !matched {
			t.Errorf("item %s: its vector is no document's embedding", it.ID)
		}
	}
}

// Built with CGO_ENABLED=0, folio is one static binary: everything but
// local ONNX models works, and --model says why it cannot.
func TestStaticBuildWithoutCgo(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "folio")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, b)
	}
	dir := t.TempDir()
	writeDocs(t, dir)
	run := func(want int, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), bin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != want {
			t.Fatalf("static folio %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, out)
		}
		return string(out)
	}
	if out := run(1, "create", "ix", "--model", "some/model"); !strings.Contains(out, "without cgo") {
		t.Errorf("--model in a static build: %q", out)
	}
	run(0, "create", "ix", "--force", "--hash-dims", "64")
	run(0, "add", "ix", "--uri", "docs")
	if out := run(0, "query", "ix", "yeast dough"); !strings.Contains(out, "bread.md") {
		t.Errorf("query in a static build:\n%s", out)
	}
}
