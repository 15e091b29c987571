package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/foliovec/folio"
	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// The tests run the built binary, as a user's shell does.

var folioBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "folio-bin-")
	if err != nil {
		panic(err)
	}
	folioBin = filepath.Join(dir, "folio")
	// No test reaches a model hub or the user's models folder unless it
	// says so: models by id come from a fake hub on 127.0.0.1.
	os.Setenv("HF_HUB_OFFLINE", "1")
	os.Setenv("FOLIO_MODELS_DIR", filepath.Join(dir, "models"))
	// The tests run the build with object storage, a superset of the
	// default build; TestDefaultBuildLinksNoCloudSDK checks the default.
	if out, err := exec.Command("go", "build", "-tags", "objectstorage", "-o", folioBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

// folioIn runs the binary in dir with args.
func folioIn(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return runIn(t, folioBin, dir, args...)
}

// runIn runs the binary bin in dir with args.
func runIn(t *testing.T, bin, dir string, args ...string) result {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errOut.String()}
}

// must runs args and fails the test unless the exit status is want.
func must(t *testing.T, dir string, want int, args ...string) result {
	t.Helper()
	r := folioIn(t, dir, args...)
	if r.code != want {
		t.Fatalf("folio %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r
}

// decode decodes a --json output.
func decode[T any](t *testing.T, r result) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("--json output is not one JSON document: %v\n%s", err, r.stdout)
	}
	return v
}

// writeDocs writes markdown files into dir/docs and returns their texts by
// file name.
func writeDocs(t *testing.T, dir string) map[string]string {
	t.Helper()
	docs := map[string]string{
		"cats.md":    "# Cats\n\nCats sleep most of the day and purr when they are content. A cat grooms its fur with its tongue.",
		"rockets.md": "# Rockets\n\nA rocket burns fuel and oxidizer to make thrust. Orbital rockets reach about eight kilometres per second.",
		"bread.md":   "# Bread\n\nBread dough rises because yeast ferments sugars into carbon dioxide. Bake the loaf until it sounds hollow.",
	}
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range docs {
		if err := os.WriteFile(filepath.Join(dir, "docs", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return docs
}

func TestCommandsWithTheOfflineModel(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)

	must(t, dir, 0, "create", "ix")
	r := must(t, dir, 1, "create", "ix")
	if !strings.Contains(r.stderr, "--force") {
		t.Errorf("create over an index: %q does not say how to replace it", r.stderr)
	}
	created := decode[map[string]any](t, must(t, dir, 0, "create", "ix", "--force", "--format", "protobuf", "--json"))
	if created["format"] != "protobuf" {
		t.Errorf("create --json: %v", created)
	}
	// No model yet: a usage error naming the three flags.
	if r := must(t, dir, 2, "add", "ix", "--uri", "docs"); !strings.Contains(r.stderr, "--hash-dims") {
		t.Errorf("add without a model: %q", r.stderr)
	}
	added := decode[map[string]any](t, must(t, dir, 0, "add", "ix", "--hash-dims", "64", "--uri", "docs", "--json"))
	if added["documents"] != float64(3) || added["chunks"].(float64) < 3 {
		t.Errorf("add --json: %v", added)
	}
	// The index remembers its model: no flag needed, and another is refused.
	q := decode[queryOutput](t, must(t, dir, 0, "query", "ix", "yeast dough rises", "--json", "--dc", "1"))
	if len(q.Results) != 1 || !strings.HasSuffix(q.Results[0].URI, "bread.md") || len(q.Results[0].Sections) == 0 {
		t.Fatalf("query: %+v", q)
	}
	r = must(t, dir, 1, "query", "ix", "cats", "--hash-dims", "32")
	if !strings.Contains(r.stderr, "hash 64") || !strings.Contains(r.stderr, "hash 32") {
		t.Errorf("another model: %q does not name both", r.stderr)
	}
	must(t, dir, 2, "query", "ix", "cats", "--hash-dims", "64", "--keys", "k.json")
	must(t, dir, 2, "query", "ix", "cats", "--filter", "{not json")
	must(t, dir, 2, "query", "ix", "cats", "--filter", `{"a": {"$bogus": 1}}`)
	must(t, dir, 2, "query", "ix")
	must(t, dir, 2, "frobnicate")

	chunks := decode[queryOutput](t, must(t, dir, 0, "query", "ix", "rocket thrust", "--format", "chunks", "--bm25", "--json"))
	if len(chunks.Results) == 0 || len(chunks.Results[0].Chunks) == 0 || !strings.Contains(chunks.Results[0].Chunks[0].Text, "rocket") {
		t.Errorf("query --format chunks: %+v", chunks)
	}
	text := must(t, dir, 0, "query", "ix", "rocket thrust").stdout
	if strings.Contains(text, "\ntrue\n") || strings.Contains(text, "\nfalse\n") || !strings.Contains(text, "Section") {
		t.Errorf("query text output:\n%s", text)
	}

	stats := decode[map[string]any](t, must(t, dir, 0, "stats", "ix", "--json"))
	if stats["documents"] != float64(3) || stats["format"] != "protobuf" || stats["kind"] != "documents" {
		t.Errorf("stats: %v", stats)
	}
	removed := decode[map[string]any](t, must(t, dir, 0, "remove", "ix", "--uri", filepath.Join("docs", "cats.md"), "--json"))
	if len(removed["removed"].([]any)) != 1 {
		t.Errorf("remove: %v", removed)
	}
	if st := decode[map[string]any](t, must(t, dir, 0, "stats", "ix", "--json")); st["documents"] != float64(2) {
		t.Errorf("stats after remove: %v", st)
	}
	must(t, dir, 0, "migrate", "ix", "--to", "json")
	if st := decode[map[string]any](t, must(t, dir, 0, "stats", "ix", "--json")); st["format"] != "json" || st["documents"] != float64(2) {
		t.Errorf("stats after migrate: %v", st)
	}
	must(t, dir, 2, "migrate", "ix")
	must(t, dir, 0, "delete", "ix")
	must(t, dir, 1, "delete", "ix")
	must(t, dir, 1, "stats", "ix")
	if r := must(t, dir, 1, "query", "missing", "x", "--json"); decode[map[string]any](t, r)["error"] == nil {
		t.Errorf("a failure with --json prints no error document: %s", r.stdout)
	}
}

func TestStatsOfAnItemIndex(t *testing.T) {
	dir := t.TempDir()
	ix, err := folio.NewLocalIndex(filepath.Join(dir, "items"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(t.Context(), core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.InsertItem(t.Context(), core.IndexItem{Vector: []float32{1, 2}}); err != nil {
		t.Fatal(err)
	}
	st := decode[map[string]any](t, must(t, dir, 0, "stats", "items", "--json"))
	if st["kind"] != "items" || st["items"] != float64(1) {
		t.Errorf("stats of an item index: %v", st)
	}
}

func TestVersionAndCompletion(t *testing.T) {
	dir := t.TempDir()
	if r := must(t, dir, 0, "version"); !strings.HasPrefix(r.stdout, "folio ") {
		t.Errorf("version: %q", r.stdout)
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		if r := must(t, dir, 0, "completion", shell); !strings.Contains(r.stdout, "folio") {
			t.Errorf("completion %s: %.80q", shell, r.stdout)
		}
	}
}

// embeddingsServer is an OpenAI-compatible embeddings endpoint on
// 127.0.0.1 whose vectors hash the input's words (testkit.Words, 16
// dimensions); it wants the key writeKeys writes.
func embeddingsServer(t testing.TB, latency time.Duration) *testkit.EmbeddingsServer {
	return testkit.NewEmbeddingsServer(t, testkit.EmbeddingsServerOptions{APIKey: "test-key", Latency: latency})
}

// writeKeys writes dir/keys.json for the embeddings server at url (the
// key embeddingsServer wants; maxTokens 0: none given) and returns its path.
func writeKeys(t testing.TB, dir, url string, maxTokens int) string {
	t.Helper()
	limit := ""
	if maxTokens > 0 {
		limit = fmt.Sprintf(`, "maxTokens": %d`, maxTokens)
	}
	keys := filepath.Join(dir, "keys.json")
	if err := os.WriteFile(keys, []byte(`{"apiKey": "test-key", "model": "test-embed", "endpoint": "`+url+`"`+limit+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestHostedModelFromAKeysFile(t *testing.T) {
	dir := t.TempDir()
	docs := writeDocs(t, dir)
	srv := embeddingsServer(t, 0)
	keys := writeKeys(t, dir, srv.URL, 8000)

	must(t, dir, 0, "create", "ix")
	added := must(t, dir, 0, "add", "ix", "--keys", keys, "--uri", "docs")
	if srv.Calls.Load() == 0 {
		t.Fatal("no embeddings call reached the test server")
	}
	// A hosted model's calls are requests, and add counts them so.
	if want := fmt.Sprintf("embedded in %d embeddings request", srv.Calls.Load()); !strings.Contains(added.stdout, want) {
		t.Errorf("add with a hosted model says %q, want %q…", added.stdout, want)
	}
	// The model file names the model, never the key.
	raw, err := os.ReadFile(filepath.Join(dir, "ix", modelFile))
	if err != nil || strings.Contains(string(raw), "test-key") || !strings.Contains(string(raw), "test-embed") {
		t.Fatalf("model file: %s, %v", raw, err)
	}
	// A hosted model needs its keys again.
	if r := must(t, dir, 2, "query", "ix", "cats"); !strings.Contains(r.stderr, "--keys") && !strings.Contains(r.stdout+r.stderr, "keys") {
		t.Errorf("query of a hosted index without keys: %q", r.stderr)
	}
	q := decode[queryOutput](t, must(t, dir, 0, "query", "ix", "cats purr fur", "--keys", keys, "--json", "--dc", "1"))
	if len(q.Results) != 1 || !strings.HasSuffix(q.Results[0].URI, "cats.md") {
		t.Fatalf("query with the hosted model: %+v", q)
	}
	// The folder opens in Folio, its documents equal the inputs.
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: filepath.Join(dir, "ix")})
	if err != nil {
		t.Fatal(err)
	}
	list, err := ix.ListDocuments(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(docs) {
		t.Fatalf("%d documents, want %d", len(list), len(docs))
	}
	for _, d := range list {
		text, err := d.LoadText(t.Context())
		if err != nil || text != docs[filepath.Base(d.URI())] {
			t.Errorf("%s: %q, %v", d.URI(), text, err)
		}
	}
}

// dialServer connects a gRPC client to the server on 127.0.0.1:port, for
// the test's duration, and returns it with a context of 30 s.
func dialServer(t *testing.T, port int) (vectrapb.VectraServiceClient, context.Context) {
	t.Helper()
	conn, err := grpc.NewClient(fmt.Sprintf("127.0.0.1:%d", port), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return vectrapb.NewVectraServiceClient(conn), ctx
}

// freePort returns a TCP port free on 127.0.0.1 now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestServeDaemonWhileAddWrites(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	must(t, dir, 0, "create", "ix", "--hash-dims", "64")
	must(t, dir, 0, "add", "ix", "--uri", filepath.Join("docs", "cats.md"))
	port := freePort(t)
	pidFile := filepath.Join(dir, "folio.pid")
	started := decode[map[string]any](t, must(t, dir, 0, "serve", "ix", "--port", fmt.Sprint(port), "--daemon", "--pid-file", pidFile, "--json"))
	if started["pid"] == nil {
		t.Fatalf("serve --daemon: %v", started)
	}
	t.Cleanup(func() {
		// Stops the server if the test failed before its own stop.
		_ = exec.Command(folioBin, "stop", "--pid-file", pidFile).Run()
	})

	client, ctx := dialServer(t, port)
	count := func() int {
		st, err := client.GetCatalogStats(ctx, &vectrapb.GetCatalogStatsRequest{IndexName: "ix"})
		if err != nil {
			t.Fatalf("GetCatalogStats: %v", err)
		}
		return int(st.GetDocumentCount())
	}
	if n := count(); n != 1 {
		t.Fatalf("the server sees %d documents, want 1", n)
	}
	// Another process adds while the server answers: the server sees it.
	must(t, dir, 0, "add", "ix", "--uri", "docs")
	deadline := time.Now().Add(10 * time.Second)
	for count() != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the server still sees %d documents 10 s after add", count())
		}
		time.Sleep(50 * time.Millisecond)
	}
	res, err := client.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "ix", Query: "rocket thrust fuel", MaxDocuments: 1})
	if err != nil || len(res.GetResults()) != 1 || !strings.HasSuffix(res.GetResults()[0].GetUri(), "rockets.md") {
		t.Fatalf("query over gRPC after add: %v, %v", res, err)
	}

	stopped := decode[map[string]any](t, must(t, dir, 0, "stop", "--pid-file", pidFile, "--json"))
	if stopped["stopped"] != true {
		t.Errorf("stop: %v", stopped)
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Errorf("pid file left behind: %v", err)
	}
	must(t, dir, 1, "stop", "--pid-file", pidFile)
}

func TestServeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	must(t, dir, 2, "serve")
	must(t, dir, 2, "serve", "ix", "--root", dir)
	must(t, dir, 2, "stop")
}

func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	for _, lang := range []string{"go", "python", "typescript", "csharp", "java", "rust"} {
		out := filepath.Join(dir, lang)
		g := decode[map[string]any](t, must(t, dir, 0, "generate", "--language", lang, "--output", out, "--json"))
		proto, err := os.ReadFile(filepath.Join(out, "vectra_service.proto"))
		if err != nil || !bytes.Contains(proto, []byte("service VectraService")) {
			t.Fatalf("%s: proto %v", lang, err)
		}
		if !strings.Contains(g["nextSteps"].(string), out) {
			t.Errorf("%s: next steps %q", lang, g["nextSteps"])
		}
	}
	for lang, file := range map[string]string{"go": "main.go", "python": "client.py"} {
		if _, err := os.Stat(filepath.Join(dir, lang, file)); err != nil {
			t.Errorf("%s client: %v", lang, err)
		}
	}
	must(t, dir, 2, "generate", "--language", "cobol", "--output", dir)
}

// writeManyDocs writes n markdown files of a few sentences into dir/many.
func writeManyDocs(t testing.TB, dir string, n int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "many"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		text := fmt.Sprintf("# Note %d\n\nThis is note number %d about topic %d. It mentions word%d and word%d.\n", i, i, i%17, i%13, i%7)
		if err := os.WriteFile(filepath.Join(dir, "many", fmt.Sprintf("note-%04d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAddInterruptedKeepsCommittedDocuments(t *testing.T) {
	dir := t.TempDir()
	writeManyDocs(t, dir, 200)
	srv := embeddingsServer(t, 50*time.Millisecond)
	keys := writeKeys(t, dir, srv.URL, 40)
	must(t, dir, 0, "create", "ix")

	cmd := exec.Command(folioBin, "add", "ix", "--keys", keys, "--uri", "many", "--concurrency", "1", "--batch-size", "5")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	exit, ok := err.(*exec.ExitError)
	if !ok || exit.ExitCode() != 1 {
		t.Fatalf("add after Ctrl-C: %v, want exit status 1; stderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr does not say add was interrupted: %s", stderr.String())
	}
	ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: filepath.Join(dir, "ix")})
	if err != nil {
		t.Fatal(err)
	}
	list, err := ix.ListDocuments(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) == 0 || len(list) == 200 || len(list)%5 != 0 {
		t.Fatalf("%d documents kept, want a whole number of batches of 5, more than none and fewer than all", len(list))
	}
	if want := fmt.Sprintf("interrupted: the %d documents committed before are kept", len(list)); !strings.Contains(stderr.String(), want) || strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("stderr after Ctrl-C: %q, want %q", stderr.String(), want)
	}
	for _, d := range list {
		if _, err := d.LoadText(t.Context()); err != nil {
			t.Fatalf("%s: %v", d.URI(), err)
		}
	}
	// Running add again finishes the job, skipping what is there.
	added := decode[addReport](t, must(t, dir, 0, "add", "ix", "--keys", keys, "--uri", "many", "--concurrency", "8", "--json"))
	if len(added.Unchanged) != len(list) || len(added.Added) != 200-len(list) || added.Documents != 200-len(list) {
		t.Errorf("second add: %v (kept %d)", added, len(list))
	}
}

// Chunk positions count UTF-16 code units, as Vectra's do: text with
// characters outside the Basic Multilingual Plane comes back whole.
func TestQueryChunksCutAtUTF16Positions(t *testing.T) {
	dir := t.TempDir()
	text := "🚀 Rockets 🚀 burn fuel; 𝄞 music notes and 😀 smiles stay whole."
	if err := os.WriteFile(filepath.Join(dir, "emoji.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, dir, 0, "create", "ix", "--hash-dims", "32")
	must(t, dir, 0, "add", "ix", "--uri", "emoji.md")
	q := decode[queryOutput](t, must(t, dir, 0, "query", "ix", "rockets fuel", "--format", "chunks", "--json"))
	if len(q.Results) != 1 || len(q.Results[0].Chunks) != 1 || q.Results[0].Chunks[0].Text != text {
		t.Fatalf("chunks: %+v, want the one chunk %q", q, text)
	}
}
