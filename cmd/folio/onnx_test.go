//go:build cgo

package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliovec/folio"
	embedonnx "github.com/foliovec/folio/adapters/embed-onnx"
	"github.com/foliovec/folio/adapters/embed-onnx/hub"
	"github.com/foliovec/folio/adapters/embed-onnx/hub/hubtest"
	"github.com/foliovec/folio/adapters/grpc/vectrapb"
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

// A model named by hub id, against a fake hub on 127.0.0.1 ($HF_ENDPOINT):
// add fetches it once, reporting on stderr, and indexes with it; more
// adds, a query, `folio model pull` and `folio serve --root` make no
// request; --offline with an empty models folder fails naming the model
// and the folder; a corrupted download fails and leaves nothing in place.
func TestModelByHubID(t *testing.T) {
	onnxLibrary(t)
	dir := t.TempDir()
	writeDocs(t, dir)
	model := filepath.Join(t.TempDir(), "tiny")
	gen := exec.CommandContext(t.Context(), "go", "run", "github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen/tinymodel", model)
	if b, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("tinymodel: %v\n%s", err, b)
	}
	srv := hubtest.New()
	defer srv.Close()
	commit, err := srv.AddFolder("acme/tiny-bert", model)
	if err != nil {
		t.Fatal(err)
	}
	models := filepath.Join(dir, "models")
	t.Setenv(hub.EndpointEnv, srv.URL)
	t.Setenv(hub.OfflineEnv, "")
	t.Setenv(embedonnx.ModelsDirEnv, models)

	// The model is named first by add, on an index created without one.
	must(t, dir, 0, "create", "ix")
	added := must(t, dir, 0, "add", "ix", "--model", "acme/tiny-bert", "--uri", "docs", "--json")
	if !strings.Contains(added.stderr, "fetching acme/tiny-bert: onnx/model.onnx") || !strings.Contains(added.stderr, "fetched acme/tiny-bert: onnx/model.onnx") {
		t.Errorf("add --model ID does not report the download on stderr:\n%s", added.stderr)
	}
	if n := decode[map[string]any](t, added)["documents"]; n != float64(3) {
		t.Errorf("add --model ID added %v documents, want 3", n)
	}
	if reqs := srv.Requests(); len(reqs) == 0 {
		t.Fatal("add --model ID made no request to the hub")
	}
	stats := decode[map[string]any](t, must(t, dir, 0, "stats", "ix", "--json"))
	if m, _ := stats["model"].(map[string]any); m["kind"] != "onnx" || m["name"] != "acme/tiny-bert" || m["commit"] != commit {
		t.Errorf("stats names the model %v, want the id and the commit %s", stats["model"], commit)
	}

	// Every later use is offline in effect: no request.
	must(t, dir, 0, "add", "ix", "--uri", filepath.Join("docs", "bread.md"))
	q := decode[queryOutput](t, must(t, t.TempDir(), 0, "query", filepath.Join(dir, "ix"), "cats purr", "--json"))
	if len(q.Results) == 0 {
		t.Fatalf("query: %+v", q)
	}
	pulled := must(t, dir, 0, "model", "pull", "acme/tiny-bert")
	if !strings.Contains(pulled.stdout, commit[:12]) || !strings.Contains(pulled.stdout, filepath.Join(models, "acme", "tiny-bert")) {
		t.Errorf("model pull of a model in place: %q", pulled.stdout)
	}
	list := decode[[]map[string]any](t, must(t, dir, 0, "model", "list", "--json"))
	if len(list) != 1 || list[0]["id"] != "acme/tiny-bert" || list[0]["commit"] != commit {
		t.Errorf("model list: %v", list)
	}
	port := freePort(t)
	pidFile := filepath.Join(dir, "folio.pid")
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "ix"), filepath.Join(root, "ix")); err != nil {
		t.Fatal(err)
	}
	must(t, dir, 0, "serve", "--root", root, "--port", fmt.Sprint(port), "--daemon", "--pid-file", pidFile)
	t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pidFile).Run() })
	client, ctx := dialServer(t, port)
	res, err := client.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "ix", Query: "cats purr", MaxDocuments: 1})
	if err != nil || len(res.GetResults()) != 1 {
		t.Fatalf("serve --root with a fetched model: %v, %v", res.GetResults(), err)
	}
	if reqs := srv.Requests(); len(reqs) != 0 {
		t.Errorf("a fetched model cost %d more requests: %v", len(reqs), reqs)
	}

	// Offline, a model not in place is an error naming it and the folder;
	// create fetches before it writes, so no index is left behind.
	empty := filepath.Join(t.TempDir(), "empty")
	t.Setenv(embedonnx.ModelsDirEnv, empty)
	off := must(t, dir, 1, "--offline", "create", "ix2", "--model", "acme/tiny-bert")
	if !strings.Contains(off.stderr, "acme/tiny-bert") || !strings.Contains(off.stderr, filepath.Join(empty, "acme", "tiny-bert")) || !strings.Contains(off.stderr, "offline") {
		t.Errorf("--offline with an empty models folder: %q", off.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ix2")); !os.IsNotExist(err) {
		t.Errorf("a create whose model could not be fetched left an index: %v", err)
	}
	t.Setenv(hub.OfflineEnv, "1")
	must(t, dir, 1, "model", "pull", "acme/tiny-bert")
	if reqs := srv.Requests(); len(reqs) != 0 {
		t.Errorf("offline made %d requests: %v", len(reqs), reqs)
	}

	// A download whose bytes are not the hub's is refused; nothing is in
	// place afterwards.
	t.Setenv(hub.OfflineEnv, "")
	srv.Break("onnx/model.onnx", hubtest.Corrupt)
	bad := must(t, dir, 1, "create", "ix3", "--model", "acme/tiny-bert")
	if !strings.Contains(bad.stderr, "sha256") || !strings.Contains(bad.stderr, "onnx/model.onnx") {
		t.Errorf("a corrupted model file: %q", bad.stderr)
	}
	if _, err := os.Stat(filepath.Join(empty, "acme", "tiny-bert", "onnx", "model.onnx")); !os.IsNotExist(err) {
		t.Errorf("a corrupted model file was put in place: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ix3")); !os.IsNotExist(err) {
		t.Errorf("a failed fetch left an index behind: %v", err)
	}
}
