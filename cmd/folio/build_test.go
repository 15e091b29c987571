package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The default build, the one make install makes, links no
// cloud SDK, and a bucket URL given to it says how to get a build that
// opens buckets, without printing the URL's query.
func TestDefaultBuildLinksNoCloudSDK(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "folio")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mods, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, sdk := range []string{"github.com/aws/", "github.com/Azure/", "cloud.google.com/go/storage", "gocloud.dev"} {
		if strings.Contains(string(mods), "dep\t"+sdk) {
			t.Errorf("the default build links %s", sdk)
		}
	}
	if info, err := os.Stat(bin); err == nil {
		t.Logf("default build: %.1f MB", float64(info.Size())/1e6)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "create", "ix", "--hash-dims", "8", "--storage-root", "s3://bucket?region=eu-west-1&secret=hunter2")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "-tags objectstorage") || !strings.Contains(string(out), "s3://bucket") || strings.Contains(string(out), "hunter2") {
		t.Errorf("a bucket URL given to the default build: %v\n%s", err, out)
	}
}

// make demo builds folio as its recipe says (read from the Makefile): with
// -tags noserver, cgo off, and the compiler's optimizations off. That
// build links no gRPC; it creates, adds and queries; and serve, stop and
// generate say they are not in it and what builds them (exit status 2).
func TestDemoBuild(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var build string
	for _, line := range recipe(t, filepath.Join(root, "Makefile"), "demo:") {
		if strings.Contains(line, " build ") && strings.Contains(line, "./cmd/folio") {
			build = line
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "-tags noserver", "-gcflags=all='-N -l'", "-o bin/folio"} {
		if !strings.Contains(build, want) {
			t.Fatalf("make demo's build %q lacks %s", build, want)
		}
	}
	// The same build, but for the optimizations (turning them off would
	// compile every package again here: the demo pays that on an empty
	// cache only).
	bin := filepath.Join(t.TempDir(), "folio")
	cmd := exec.Command("go", "build", "-tags", "noserver", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags noserver: %v\n%s", err, out)
	}
	mods, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mods), "google.golang.org/grpc") {
		t.Error("the demo's build links gRPC")
	}
	dir := t.TempDir()
	writeDocs(t, dir)
	run := func(code int, args ...string) string {
		t.Helper()
		c := exec.Command(bin, args...)
		c.Dir = dir
		out, err := c.CombinedOutput()
		if got := c.ProcessState.ExitCode(); got != code {
			t.Fatalf("folio %s: exit %d (%v), want %d\n%s", strings.Join(args, " "), got, err, code, out)
		}
		return string(out)
	}
	run(0, "create", "ix")
	run(0, "add", "ix", "--hash-dims", "64", "--uri", "docs")
	if out := run(0, "query", "ix", "rocket thrust fuel", "--document-count", "1"); !strings.Contains(out, "rockets.md") {
		t.Errorf("the demo's build answers\n%s", out)
	}
	for _, name := range []string{"serve", "stop", "generate"} {
		if out := run(2, name, "ix"); !strings.Contains(out, "not in this build") || !strings.Contains(out, "make install") {
			t.Errorf("folio %s in the demo's build says\n%s", name, out)
		}
	}
}
