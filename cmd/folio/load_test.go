package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/foliovec/folio"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

// folio-load (cmd/folio/loadgen, the benchmarks' load generator) drives a
// real server with a mix of calls and accounts for
// every one: the counts per kind add up to --requests, none fail, and the
// percentiles are ordered.
func TestLoadAgainstAServer(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	root := filepath.Join(dir, "indexes")
	must(t, dir, 0, "create", filepath.Join("indexes", "docs"), "--hash-dims", "16")
	must(t, dir, 0, "add", filepath.Join("indexes", "docs"), "--uri", "docs")
	ix, err := folio.NewLocalIndex(filepath.Join(root, "vectors"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(t.Context(), core.CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 500 {
		if _, err := ix.InsertItem(t.Context(), core.IndexItem{Vector: unitVector(rng, 16), Metadata: core.Metadata{"group": float64(i % 4)}}); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	pidFile := filepath.Join(dir, "s.pid")
	must(t, dir, 0, "serve", "--root", root, "--port", fmt.Sprint(port), "--daemon", "--pid-file", pidFile)
	t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pidFile).Run() })

	type out struct {
		Stats []struct {
			Kind                       string
			Calls, Errors              int
			PerSec                     float64 `json:"perSecond"`
			P50Ms, P90Ms, P99Ms, MaxMs float64
		} `json:"stats"`
	}
	r := decode[out](t, mustLoad(t, dir, 0, "--address", fmt.Sprintf("127.0.0.1:%d", port), "--index", "vectors", "--doc-index", "docs",
		"--dims", "16", "--requests", "400", "--concurrency", "4", "--mix", "query=4", "--mix", "filter=2", "--mix", "docs=1", "--mix", "insert=1", "--json"))
	if len(r.Stats) != 5 || r.Stats[4].Kind != "all" {
		t.Fatalf("stats %+v, want query, filter, docs, insert and all", r.Stats)
	}
	sum := 0
	for _, s := range r.Stats[:4] {
		sum += s.Calls
		if s.Calls == 0 || s.Errors != 0 || s.PerSec <= 0 || s.P50Ms <= 0 || s.P50Ms > s.P90Ms || s.P90Ms > s.P99Ms || s.P99Ms > s.MaxMs {
			t.Errorf("%+v", s)
		}
	}
	if sum != 400 || r.Stats[4].Calls != 400 {
		t.Errorf("%d calls counted, want 400", sum)
	}
	// Calls that fail are counted as errors, with the first one shown.
	res := mustLoad(t, dir, 0, "--address", fmt.Sprintf("127.0.0.1:%d", port), "--index", "nothere", "--dims", "16", "--requests", "10")
	if want := "query: 10 errors, the first: "; !strings.Contains(res.stderr, want) {
		t.Errorf("stderr %q, want %q", res.stderr, want)
	}
	mustLoad(t, dir, 2, "--index", "vectors", "--mix", "scan=1")

	// --create makes the index over the service, replacing one of that
	// name, and the run then queries it.
	for _, n := range []int{1500, 30} {
		res = mustLoad(t, dir, 0, "--address", fmt.Sprintf("127.0.0.1:%d", port), "--index", "made", "--create", fmt.Sprint(n),
			"--format", "protobuf", "--dims", "8", "--requests", "20", "--json")
		if want := fmt.Sprintf("created index made: %d items of 8 dimensions", n); !strings.Contains(res.stderr, want) {
			t.Errorf("stderr %q, want %q", res.stderr, want)
		}
		if r := decode[out](t, res); r.Stats[len(r.Stats)-1].Errors != 0 {
			t.Errorf("queries of the created index failed: %+v", r.Stats)
		}
		made, err := folio.NewLocalIndex(filepath.Join(root, "made"), &folio.IndexOptions{Codec: codecpb.New(), FreshnessInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		items, err := made.ListItems(t.Context())
		if err != nil || len(items) != n || len(items[0].Vector) != 8 {
			t.Fatalf("created index: %d items, %v; want %d of 8 dimensions", len(items), err, n)
		}
	}
}

var (
	loadOnce sync.Once
	loadBin  string
	loadErr  error
)

// mustLoad runs folio-load, built once beside the folio binary, in dir
// and fails the test unless its exit status is want.
func mustLoad(t *testing.T, dir string, want int, args ...string) result {
	t.Helper()
	loadOnce.Do(func() {
		loadBin = filepath.Join(filepath.Dir(folioBin), "folio-load")
		if out, err := exec.Command("go", "build", "-o", loadBin, "./loadgen").CombinedOutput(); err != nil {
			loadErr = fmt.Errorf("build folio-load: %v\n%s", err, out)
		}
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	r := runIn(t, loadBin, dir, args...)
	if r.code != want {
		t.Fatalf("folio-load %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r
}

// unitVector is a random vector of n components, of length 1.
func unitVector(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	var sq float64
	for i := range v {
		v[i] = float32(rng.NormFloat64())
		sq += float64(v[i] * v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(sq))
	}
	return v
}
