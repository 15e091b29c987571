package main

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/foliovec/folio"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/core"
)

// `folio serve --quantized` scans int8 codes and re-ranks exactly: on a
// 20k×384 index it answers QueryItems with the same ids and scores as a
// server scanning exactly.
func TestServeQuantizedAnswersAsTheExactScan(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "vectors")
	ix, err := folio.NewLocalIndex(folder, &folio.IndexOptions{Codec: codecpb.New()})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(t.Context(), core.CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(20, 384))
	items := make([]core.IndexItem, 20_000)
	for i := range items {
		items[i] = core.IndexItem{ID: fmt.Sprintf("v%05d", i), Vector: unitVector(rng, 384)}
	}
	if _, err := ix.BatchInsertItems(t.Context(), items); err != nil {
		t.Fatal(err)
	}
	serve := func(extra ...string) vectrapb.VectraServiceClient {
		port := freePort(t)
		pidFile := filepath.Join(dir, fmt.Sprintf("%d.pid", port))
		args := append([]string{"serve", "vectors", "--port", fmt.Sprint(port), "--daemon", "--pid-file", pidFile}, extra...)
		must(t, dir, 0, args...)
		t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pidFile).Run() })
		client, _ := dialServer(t, port)
		return client
	}
	exact, quantized := serve(), serve("--quantized")
	ctx := t.Context()
	for q := range 50 {
		req := &vectrapb.QueryItemsRequest{IndexName: "vectors", Vector: unitVector(rng, 384), TopK: 10}
		want, err := exact.QueryItems(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := quantized.QueryItems(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.GetResults()) != 10 || len(want.GetResults()) != 10 {
			t.Fatalf("query %d: %d and %d results, want 10", q, len(got.GetResults()), len(want.GetResults()))
		}
		for i, w := range want.GetResults() {
			g := got.GetResults()[i]
			if g.GetId() != w.GetId() || g.GetScore() != w.GetScore() {
				t.Fatalf("query %d, rank %d: --quantized gives %s %v, the exact scan %s %v", q, i, g.GetId(), g.GetScore(), w.GetId(), w.GetScore())
			}
		}
	}
}
