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

// The generated Go client is built in a module of its own outside the
// repository, offline (GOPROXY=off), with replace lines pointing at this
// checkout, and run against `folio serve`.
func TestGeneratedGoClient(t *testing.T) {
	dir := t.TempDir()
	addr := serveDocs(t, dir)
	out := filepath.Join(t.TempDir(), "goclient")
	must(t, dir, 0, "generate", "--language", "go", "--output", out)

	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var mod strings.Builder
	mod.WriteString("module example.com/folioclient\n\ngo 1.26\n\nrequire github.com/foliovec/folio/adapters/grpc v0.0.0-00010101000000-000000000000\n\nreplace (\n")
	for _, m := range []string{"adapters/grpc", "core", "conformance"} {
		fmt.Fprintf(&mod, "\tgithub.com/foliovec/folio/%s => %s\n", m, filepath.Join(repo, m))
	}
	mod.WriteString(")\n")
	if err := os.WriteFile(filepath.Join(out, "go.mod"), []byte(mod.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(repo, "adapters", "grpc", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "go.sum"), sums, 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "go", args...)
		cmd.Dir = out
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOFLAGS=-mod=mod")
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return string(b)
	}
	goCmd("mod", "tidy")
	goCmd("build", "-o", "client", ".")
	run := exec.CommandContext(t.Context(), filepath.Join(out, "client"), "-addr", addr, "ix", "rocket thrust fuel")
	b, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("generated Go client: %v\n%s", err, b)
	}
	checkClientOutput(t, string(b))
}

// The generated Python client runs against `folio serve` with Debian's
// python3-grpcio and python3-grpc-tools. It needs FOLIO_PYTHON, the Python
// that has them, which `make vectra-client-test` (run by CI) installs and
// sets.
func TestGeneratedPythonClient(t *testing.T) {
	python := os.Getenv("FOLIO_PYTHON")
	if python == "" {
		t.Skip("FOLIO_PYTHON is not set; `make vectra-client-test` runs this test")
	}
	dir := t.TempDir()
	addr := serveDocs(t, dir)
	out := filepath.Join(t.TempDir(), "pyclient")
	must(t, dir, 0, "generate", "--language", "python", "--output", out)

	protoc := exec.CommandContext(t.Context(), python, "-m", "grpc_tools.protoc", "-I.", "--python_out=.", "--grpc_python_out=.", "vectra_service.proto")
	protoc.Dir = out
	if b, err := protoc.CombinedOutput(); err != nil {
		t.Fatalf("grpc_tools.protoc: %v\n%s", err, b)
	}
	run := exec.CommandContext(t.Context(), python, "client.py", "--addr", addr, "ix", "rocket thrust fuel")
	run.Dir = out
	b, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("generated Python client: %v\n%s", err, b)
	}
	t.Logf("python client:\n%s", b)
	checkClientOutput(t, string(b))
}
