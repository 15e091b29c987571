package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/adapters/metrics"
	"github.com/foliovec/folio/core"
)

// words is a tiny embeddings model; "throttle" makes it answer rate_limited.
type words struct{}

func (words) MaxTokens() int { return 1000 }
func (words) CreateEmbeddings(_ context.Context, in []string) (core.EmbeddingsResponse, error) {
	out := make([][]float32, len(in))
	for i, s := range in {
		if strings.Contains(s, "throttle") {
			err := &core.EmbeddingsError{Status: core.EmbeddingsRateLimited, Message: "slow down"}
			return core.EmbeddingsResponse{Status: core.EmbeddingsRateLimited, Message: "slow down"}, err
		}
		out[i] = []float32{float32(len(s)), 1}
	}
	return core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: out}, nil
}

func gather(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += "," + l.GetName() + "=" + l.GetValue()
			}
			switch {
			case m.Counter != nil:
				out[key] = m.GetCounter().GetValue()
			case m.Gauge != nil:
				out[key] = m.GetGauge().GetValue()
			case m.Histogram != nil:
				out[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

// The index collector reports each index's counters and gauges, which move
// with what the index does, and every metric passes Prometheus's lint.
func TestIndexAndEmbeddingsMetrics(t *testing.T) {
	ctx := t.Context()
	ix, err := core.NewLocalIndex("ix", core.IndexOptions{Storage: core.NewMemoryStorage(), Codec: codecjson.New()})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented}); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	emb := metrics.NewEmbeddings()
	parted := partitionedIndex(t)
	reg.MustRegister(metrics.NewIndexCollector(func() []metrics.Index {
		return []metrics.Index{{Name: "ix", Index: ix}, {Name: "parted", Index: parted}}
	}), emb, metrics.NewServer())
	before := gather(t, reg)
	if before["folio_index_items,index=ix"] != 0 || before["folio_index_queries_total,index=ix"] != 0 {
		t.Fatalf("a new index: %v", before)
	}
	for _, id := range []string{"a", "b", "c"} {
		if _, err := ix.InsertItem(ctx, core.IndexItem{ID: id, Vector: []float32{1, 2}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.DeleteItem(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.QueryItems(ctx, []float32{1, 2}, "", 1, nil, false); err != nil {
		t.Fatal(err)
	}
	after := gather(t, reg)
	for key, want := range map[string]float64{
		"folio_index_items,index=ix": 2, "folio_index_commits_total,index=ix": 4, "folio_index_queries_total,index=ix": 1,
		"folio_index_segments,index=ix": 4, "folio_index_tombstones,index=ix": 1,
		"folio_index_scans_total,index=ix,kind=exact": 1, "folio_index_scans_total,index=ix,kind=codes": 0,
	} {
		if after[key] != want {
			t.Errorf("%s = %v, want %v", key, after[key], want)
		}
	}
	if _, err := ix.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if got := gather(t, reg); got["folio_index_compactions_total,index=ix"] != 1 || got["folio_index_segments,index=ix"] != 1 || got["folio_index_tombstones,index=ix"] != 0 {
		t.Errorf("after a compaction: %v", got)
	}

	partitionMetrics(t, reg, parted)

	instrumented := emb.Instrument("words", words{})
	if instrumented.MaxTokens() != 1000 {
		t.Errorf("MaxTokens %d", instrumented.MaxTokens())
	}
	if _, err := instrumented.CreateEmbeddings(ctx, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := instrumented.CreateEmbeddings(ctx, []string{"throttle"}); !errors.Is(err, core.ErrRateLimited) {
		t.Fatalf("throttled: %v", err)
	}
	got := gather(t, reg)
	for key, want := range map[string]float64{
		"folio_embeddings_calls_total,model=words,status=success": 1, "folio_embeddings_calls_total,model=words,status=rate_limited": 1,
		"folio_embeddings_inputs_total,model=words": 3, "folio_embeddings_call_seconds,model=words": 2,
	} {
		if got[key] != want {
			t.Errorf("%s = %v, want %v", key, got[key], want)
		}
	}

	problems, err := testutil.GatherAndLint(reg)
	if err != nil || len(problems) != 0 {
		t.Errorf("lint: %v, %v", problems, err)
	}
	// Served as Prometheus's text format, parsed by its own parser.
	srv := httptest.NewServer(metrics.Handler(reg, false))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(string(raw)))
	if err != nil || fams["folio_index_queries_total"] == nil {
		t.Fatalf("parse /metrics: %v (%d families)", err, len(fams))
	}
	if problems, err := promlint.New(strings.NewReader(string(raw))).Lint(); err != nil || len(problems) != 0 {
		t.Errorf("lint of /metrics: %v, %v", problems, err)
	}
	if r, err := srv.Client().Get(srv.URL + "/debug/pprof/"); err != nil || r.StatusCode != 404 {
		t.Errorf("pprof without asking: %v, %v", r.StatusCode, err)
	}
	withPprof := httptest.NewServer(metrics.Handler(reg, true))
	defer withPprof.Close()
	if r, err := withPprof.Client().Get(withPprof.URL + "/debug/pprof/"); err != nil || r.StatusCode != 200 {
		t.Errorf("pprof when asked: %v, %v", r, err)
	}
}

// An index's code bytes follow the codes it keeps, and an index with a Dir
// reports the bytes of the files below it, walked again only after a
// minute.
func TestCodeAndDiskBytes(t *testing.T) {
	ctx := t.Context()
	ix, err := core.NewLocalIndex("ix", core.IndexOptions{Storage: core.NewMemoryStorage(), Codec: codecjson.New(), ScanCodes: core.CodesInt8})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var want int64
	for i, size := range []int{10, 2000, 0} {
		sub := filepath.Join(dir, "sub")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, strconv.Itoa(i)), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		want += int64(size)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewIndexCollector(func() []metrics.Index { return []metrics.Index{{Name: "ix", Index: ix, Dir: dir}} }))
	if got := gather(t, reg); got["folio_index_code_bytes,index=ix"] != 0 || got["folio_index_disk_bytes,index=ix"] != float64(want) {
		t.Fatalf("an empty index: code bytes %v, disk bytes %v (want 0, %d)", got["folio_index_code_bytes,index=ix"], got["folio_index_disk_bytes,index=ix"], want)
	}
	items := make([]core.IndexItem, 100)
	for i := range items {
		items[i] = core.IndexItem{ID: strconv.Itoa(i), Vector: []float32{float32(i), 1, 2, 3}}
	}
	if _, err := ix.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.QueryItems(ctx, []float32{1, 2, 3, 4}, "", 3, nil, false); err != nil {
		t.Fatal(err)
	}
	st, err := ix.GetIndexStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// 100 rows of int8 codes, each at least its 4 values and a 4-byte factor.
	if st.CodeBytes < 100*(4+4) {
		t.Fatalf("CodeBytes %d for 100 rows of 4 values", st.CodeBytes)
	}
	if err := os.WriteFile(filepath.Join(dir, "more"), make([]byte, 500), 0o644); err != nil {
		t.Fatal(err)
	}
	got := gather(t, reg)
	if got["folio_index_code_bytes,index=ix"] != float64(st.CodeBytes) {
		t.Errorf("folio_index_code_bytes %v, GetIndexStats says %d", got["folio_index_code_bytes,index=ix"], st.CodeBytes)
	}
	if got["folio_index_disk_bytes,index=ix"] != float64(want) {
		t.Errorf("folio_index_disk_bytes %v within the minute, want the last walk's %d", got["folio_index_disk_bytes,index=ix"], want)
	}
}

// partitionedIndex returns an index of core.PartitionMinRows rows in 64
// tight clusters, whose queries probe partitions.
func partitionedIndex(t *testing.T) *core.LocalIndex {
	t.Helper()
	ctx := t.Context()
	ix, err := core.NewLocalIndex("parted", core.IndexOptions{Storage: core.NewMemoryStorage(), Codec: codecjson.New(), Partitions: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const dim, clusters = 16, 64
	centres := make([][]float32, clusters)
	for c := range centres {
		centres[c] = make([]float32, dim)
		for j := range dim {
			centres[c][j] = float32(r.NormFloat64())
		}
	}
	items := make([]core.IndexItem, core.PartitionMinRows)
	for i := range items {
		v := make([]float32, dim)
		for j, x := range centres[i%clusters] {
			v[j] = x + float32(0.05*r.NormFloat64())
		}
		items[i] = core.IndexItem{ID: fmt.Sprint(i), Vector: v}
	}
	if _, err := ix.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	return ix
}

// partitionMetrics checks the partitioned index's gauges and that its
// queries count as probed scans.
func partitionMetrics(t *testing.T, reg *prometheus.Registry, parted *core.LocalIndex) {
	t.Helper()
	before := gather(t, reg)
	parts, probes := before["folio_index_partitions,index=parted"], before["folio_index_partition_probes,index=parted"]
	if parts == 0 || probes >= parts || before["folio_index_expected_recall,index=parted"] < core.DefaultTargetRecall {
		t.Errorf("partition gauges: %v partitions, %v probes, recall %v", parts, probes, before["folio_index_expected_recall,index=parted"])
	}
	for _, m := range []string{"folio_index_partitions,index=ix", "folio_index_probed_scans_total,index=ix"} {
		if before[m] != 0 {
			t.Errorf("%s = %v on an index without partitions", m, before[m])
		}
	}
	it, ok, err := parted.GetItem(t.Context(), "5")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if _, err := parted.QueryItems(t.Context(), it.Vector, "", 3, nil, false); err != nil {
		t.Fatal(err)
	}
	if got := gather(t, reg)["folio_index_probed_scans_total,index=parted"]; got != before["folio_index_probed_scans_total,index=parted"]+1 {
		t.Errorf("probed scans %v after a query, %v before", got, before["folio_index_probed_scans_total,index=parted"])
	}
}
