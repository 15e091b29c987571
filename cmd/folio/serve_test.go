//go:build !noserver

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A token file or $FOLIO_TOKEN that yields an empty token stops serve at
// start-up: an empty file must never mean "no authentication".
func TestServeRefusesAnEmptyToken(t *testing.T) {
	dir := t.TempDir()
	must(t, dir, 0, "create", "ix", "--hash-dims", "16")
	for _, content := range []string{"", "\n", "  \t\n"} {
		f := filepath.Join(dir, "token")
		if err := os.WriteFile(f, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		r := must(t, dir, 1, "serve", "ix", "--port", fmt.Sprint(freePort(t)), "--token-file", f)
		if !strings.Contains(r.stderr, "is empty") || strings.Contains(r.stdout, listeningLine) {
			t.Errorf("token file %q: stdout %q, stderr %q; want a refusal before listening", content, r.stdout, r.stderr)
		}
	}
	t.Setenv(tokenEnv, " \n")
	r := must(t, dir, 1, "serve", "ix", "--port", fmt.Sprint(freePort(t)))
	if !strings.Contains(r.stderr, tokenEnv) || strings.Contains(r.stdout, listeningLine) {
		t.Errorf("empty $%s: stdout %q, stderr %q; want a refusal before listening", tokenEnv, r.stdout, r.stderr)
	}
}

// `folio serve --root` serves each index with the model it remembers:
// two indexes built with different --hash-dims both answer text queries,
// and an index with no model says so at start-up.
func TestServeRootUsesEachIndexModel(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	root := filepath.Join(dir, "indexes")
	for name, dims := range map[string]string{"small": "32", "large": "128"} {
		must(t, dir, 0, "create", filepath.Join("indexes", name), "--hash-dims", dims)
		must(t, dir, 0, "add", filepath.Join("indexes", name), "--uri", "docs")
	}
	must(t, dir, 0, "create", filepath.Join("indexes", "bare"))
	port := freePort(t)
	pidFile := filepath.Join(dir, "folio.pid")
	must(t, dir, 0, "serve", "--root", root, "--port", fmt.Sprint(port), "--daemon", "--pid-file", pidFile)
	t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pidFile).Run() })
	client, ctx := dialServer(t, port)
	for _, name := range []string{"small", "large"} {
		res, err := client.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: name, Query: "rocket thrust fuel", MaxDocuments: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.GetResults()) != 1 || !strings.HasSuffix(res.GetResults()[0].GetUri(), "rockets.md") {
			t.Fatalf("%s: %v", name, res.GetResults())
		}
	}
	_, err := client.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "bare", Query: "anything"})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "bare") || !strings.Contains(err.Error(), "--hash-dims") {
		t.Fatalf("an index without a model: %v, want FAILED_PRECONDITION naming it and the flag", err)
	}
	log, err := os.ReadFile(pidFile + ".log")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "bare: no embeddings model") || !strings.Contains(string(log), "--hash-dims") {
		t.Fatalf("the start-up log does not say which index has no model:\n%s", log)
	}
}

// folio serve answers document queries as folio query does, by default
// and with --ranking fusion: the same documents in the same order, fused
// scores; with --ranking vectra a document scores Vectra's mean of its
// chunks.
func TestServeRankingFusion(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	must(t, dir, 0, "create", "ix", "--hash-dims", "64")
	must(t, dir, 0, "add", "ix", "--uri", "docs")
	want := decode[queryOutput](t, must(t, dir, 0, "query", "ix", "rocket thrust fuel", "--json"))
	for _, ranking := range []string{"vectra", "fusion", ""} {
		port := freePort(t)
		pidFile := filepath.Join(dir, ranking+".pid")
		args := []string{"serve", "ix", "--port", fmt.Sprint(port), "--daemon", "--pid-file", pidFile}
		if ranking != "" {
			args = append(args, "--ranking", ranking)
		} else {
			ranking = "fusion" // the default: folio query's ranking
		}
		must(t, dir, 0, args...)
		t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pidFile).Run() })
		client, ctx := dialServer(t, port)
		res, err := client.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "ix", Query: "rocket thrust fuel", MaxDocuments: 5})
		if err != nil {
			t.Fatal(err)
		}
		got := res.GetResults()
		if len(got) == 0 {
			t.Fatalf("%s: no results", ranking)
		}
		fused := true
		for i, r := range got {
			if ranking == "fusion" && (i >= len(want.Results) || r.GetUri() != want.Results[i].URI || r.GetScore() != want.Results[i].Score) {
				t.Errorf("fusion: result %d is %s %v, want folio query's %+v", i, r.GetUri(), r.GetScore(), want.Results)
			}
			fused = fused && r.GetScore() > 0 && r.GetScore() <= 2.0/61
		}
		if fused != (ranking == "fusion") {
			t.Errorf("%s: scores %v; fused: %v", ranking, got, fused)
		}
	}
}
