package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// serveDocs creates an index of the three test documents in dir and serves
// it in the background on a free port, returning the address. The server is
// stopped when the test ends.
func serveDocs(t *testing.T, dir string) string {
	t.Helper()
	writeDocs(t, dir)
	must(t, dir, 0, "create", "ix", "--hash-dims", "64")
	must(t, dir, 0, "add", "ix", "--uri", "docs")
	port := freePort(t)
	pidFile := filepath.Join(dir, "folio.pid")
	must(t, dir, 0, "serve", "ix", "--port", fmt.Sprint(port), "--daemon", "--pid-file", pidFile)
	t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pidFile).Run() })
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// checkClientOutput checks what either generated client prints for the
// query "rocket thrust fuel" against serveDocs's index.
func checkClientOutput(t *testing.T, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "index ix ") || !strings.Contains(lines[0], "document index: ") {
		t.Fatalf("client output does not list the index first:\n%s", out)
	}
	if !strings.Contains(lines[1], "rockets.md") {
		t.Fatalf("client output does not put rockets.md first:\n%s", out)
	}
}

// The generated Go client is a module of its own: the commands `folio
// generate -l go` prints are run verbatim in a folder outside the
// repository, fetching grpc and protobuf as a user's go command would (the
// Go module proxy, or the module cache when it already holds them), and the
// client lists the indexes of a running `folio serve` and queries one.
func TestGeneratedGoClient(t *testing.T) {
	dir := t.TempDir()
	addr := serveDocs(t, dir)
	work := t.TempDir()
	res := must(t, work, 0, "generate", "-l", "go", "-o", "client")

	written, err := os.ReadFile(filepath.Join(work, "client", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var build string
	for _, line := range strings.Split(res.stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "cd ") {
			build = strings.TrimSpace(line)
			break
		}
	}
	if build == "" {
		t.Fatalf("generate printed no build command:\n%s", res.stdout)
	}
	env := append(os.Environ(), "GOWORK=off", "FOLIO_ADDR="+addr)
	sh := exec.CommandContext(t.Context(), "sh", "-c", build)
	sh.Dir, sh.Env = work, env
	b, err := sh.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", build, err, b)
	}
	if !strings.Contains(string(b), "index ix (") {
		t.Fatalf("%s does not list the served index:\n%s", build, b)
	}

	query := exec.CommandContext(t.Context(), "go", "run", ".", "-addr", addr, "ix", "rocket thrust fuel")
	query.Dir, query.Env = filepath.Join(work, "client"), env
	b, err = query.CombinedOutput()
	if err != nil {
		t.Fatalf("generated Go client: %v\n%s", err, b)
	}
	checkClientOutput(t, string(b))

	// Self-contained: nothing of Folio's but the stubs it wrote.
	mod, err := os.ReadFile(filepath.Join(work, "client", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mod), "foliovec") {
		t.Fatalf("the generated client's go.mod names a Folio module:\n%s", mod)
	}
	// go mod tidy keeps the go line generate wrote: no requirement needs a
	// newer Go (it rewrote "go 1.24" to gRPC's "go 1.25.0").
	goLine := func(mod []byte) string {
		for _, line := range strings.Split(string(mod), "\n") {
			if strings.HasPrefix(line, "go ") {
				return line
			}
		}
		return ""
	}
	if goLine(mod) != goLine(written) || goLine(written) == "" {
		t.Errorf("go mod tidy changed the client's go line from %q to %q", goLine(written), goLine(mod))
	}
}

// The generated Python client runs against `folio serve` with Debian's
// python3-grpcio and python3-grpc-tools, by the steps generate prints, run
// as printed: they name the Python that has the packages, which need not
// be the python3 first on PATH (a pyenv one, here). It needs FOLIO_PYTHON,
// the Python that has them, which `make vectra-client-test` (run by CI)
// installs and sets.
func TestGeneratedPythonClient(t *testing.T) {
	python := os.Getenv("FOLIO_PYTHON")
	if python == "" {
		t.Skip("FOLIO_PYTHON is not set; `make vectra-client-test` runs this test")
	}
	dir := t.TempDir()
	addr := serveDocs(t, dir)
	out := filepath.Join(t.TempDir(), "pyclient")
	res := must(t, dir, 0, "generate", "--language", "python", "--output", out)
	var steps []string
	for _, line := range strings.Split(res.stdout, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "cd ") || strings.Contains(line, "client.py index-name") {
			steps = append(steps, line)
		}
	}
	if len(steps) != 2 || strings.Contains(res.stdout, "sudo apt-get") {
		t.Fatalf("generate printed, with the packages installed for %s:\n%s", python, res.stdout)
	}
	protoc := exec.CommandContext(t.Context(), "sh", "-c", steps[0])
	if b, err := protoc.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", steps[0], err, b)
	}
	// The address from $FOLIO_ADDR, as the Go client reads it.
	run := exec.CommandContext(t.Context(), "sh", "-c", strings.Replace(steps[1], `index-name "your query"`, `ix "rocket thrust fuel"`, 1))
	run.Dir = out
	run.Env = append(os.Environ(), "FOLIO_ADDR="+addr)
	b, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("generated Python client (%s): %v\n%s", steps[1], err, b)
	}
	t.Logf("python client:\n%s", b)
	checkClientOutput(t, string(b))
}

// The same question to `folio query` and, through Vectra 0.15's own
// generated Python client (unchanged), to `folio serve` gives the same top
// 3 by default: both rank by fusion. A server with --ranking vectra
// answers otherwise for some of the questions, so the check can fail.
// The index holds this repository's README and docs. FOLIO_VECTRA_PY
// names the folder holding that client (make vectra-client-test makes it
// and runs this test).
func TestVectraPythonClientRanksAsFolioQuery(t *testing.T) {
	client := os.Getenv("FOLIO_VECTRA_PY")
	if client == "" {
		t.Skip("FOLIO_VECTRA_PY is not set: run make vectra-client-test")
	}
	python := os.Getenv("FOLIO_PYTHON")
	if python == "" {
		python = "python3"
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	index := filepath.Join(dir, "ix")
	must(t, root, 0, "create", index, "--hash-dims", "384")
	must(t, root, 0, "add", index, "--uri", "README.md", "--uri", "docs")
	serve := func(extra ...string) string {
		port := freePort(t)
		pidFile := filepath.Join(dir, fmt.Sprint(port)+".pid")
		must(t, dir, 0, append([]string{"serve", index, "--port", fmt.Sprint(port), "--daemon", "--pid-file", pidFile}, extra...)...)
		t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pidFile).Run() })
		return fmt.Sprintf("127.0.0.1:%d", port)
	}
	byDefault, vectra := serve(), serve("--ranking", "vectra")
	ask := func(addr, q string) []string {
		script := fmt.Sprintf(`import sys
from vectra_client import VectraClient
host, port = sys.argv[1].rsplit(":", 1)
with VectraClient(host, int(port)) as c:
    for d in c.query_documents("ix", %q, max_documents=3):
        print(d["uri"])
`, q)
		cmd := exec.CommandContext(t.Context(), python, "-c", script, addr)
		cmd.Dir = client
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("Vectra's Python client: %v\n%s", err, out)
		}
		return strings.Fields(string(out))
	}
	differs := false
	for _, q := range []string{
		"how do several processes share one index folder?",
		"How do I run every test with the race detector?",
		"BM25 keyword matches in hybrid queries",
		"which storage keeps indexes in a bucket",
		"what does Folio fix of Vectra's filters",
	} {
		want := decode[queryOutput](t, must(t, root, 0, "query", index, q, "--json", "--document-count", "3"))
		var wantURIs []string
		for _, r := range want.Results {
			wantURIs = append(wantURIs, r.URI)
		}
		if got := ask(byDefault, q); strings.Join(got, " ") != strings.Join(wantURIs, " ") {
			t.Errorf("%q: the server through Vectra's client answers %v, folio query %v", q, got, wantURIs)
		}
		differs = differs || strings.Join(ask(vectra, q), " ") != strings.Join(wantURIs, " ")
	}
	if !differs {
		t.Error("with --ranking vectra the server answers every question as folio query does: the questions do not tell the rankings apart")
	}
}
