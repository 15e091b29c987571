//go:build !noserver

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
)

// scrape reads a /metrics page with Prometheus's own parser, as
// "name{label=value,…}" → value (a histogram's sample count), and lints it.
func scrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	if problems, err := promlint.New(bytes.NewReader(raw)).Lint(); err != nil || len(problems) != 0 {
		t.Errorf("promlint: %v, %v", problems, err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			key := name + "{" + strings.Join(labels, ",") + "}"
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

// folio serve --metrics-addr serves Prometheus metrics that move with what
// happens: a query, an insert, a commit, a merge of segments, a background
// compaction, an over-size query
// refused, a rate-limited embeddings call; they pass promlint, and
// --pprof adds the profiles.
func TestServeMetrics(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	// A hosted model whose endpoint answers 429 to a text holding
	// "throttle" (no retry: the keys file's retryPolicy is empty).
	upstream := embeddingsServer(t, 0)
	target, _ := url.Parse(upstream.URL)
	forward := httputil.NewSingleHostReverseProxy(target)
	throttling := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte("throttle")) {
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		forward.ServeHTTP(w, r)
	}))
	defer throttling.Close()
	keys := filepath.Join(dir, "keys.json")
	if err := os.WriteFile(keys, []byte(`{"apiKey": "test-key", "model": "test-embed", "endpoint": "`+throttling.URL+`", "retryPolicy": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	must(t, dir, 0, "create", "ix", "--format", "segmented", "--keys", keys)
	must(t, dir, 0, "add", "ix", "--keys", keys, "--uri", "docs")
	// A document of over 4,096 small chunks: deleting it leaves enough
	// tombstones for the background compaction.
	var big strings.Builder
	for i := range 4500 {
		fmt.Fprintf(&big, "line %d of a long page.\n\n", i)
	}
	bigPath := filepath.Join(dir, "big.md")
	if err := os.WriteFile(bigPath, []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, dir, 0, "add", "ix", "--keys", keys, "--uri", bigPath, "--chunk-size", "8", "-q")

	port, metricsPort := freePort(t), freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", metricsPort)
	pidFile := filepath.Join(dir, "folio.pid")
	must(t, dir, 0, "serve", "ix", "--keys", keys, "--port", fmt.Sprint(port), "--daemon", "--pid-file", pidFile,
		"--metrics-addr", addr, "--pprof", "--compact-interval", "100ms", "--max-query-size", "1KiB")
	t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pidFile).Run() })
	client, ctx := dialServer(t, port)

	m := scrape(t, addr)
	const handled = `folio_grpc_server_handled_total{grpc_code=OK,grpc_method=QueryDocuments,grpc_service=vectra.VectraService,grpc_type=unary}`
	for _, key := range []string{handled, "folio_index_items{index=ix}", "go_goroutines{}", "process_resident_memory_bytes{}"} {
		if _, ok := m[key]; !ok {
			t.Errorf("no %s in the first scrape", key)
		}
	}
	if m["folio_index_items{index=ix}"] < 4096 || m["folio_index_documents{index=ix}"] != 4 {
		t.Errorf("items %v, documents %v; want the 4 documents' chunks", m["folio_index_items{index=ix}"], m["folio_index_documents{index=ix}"])
	}
	// The folder's bytes on disk, as a walk of it finds them (a background
	// compaction may have rewritten some since).
	var onDisk int64
	if err := filepath.WalkDir(filepath.Join(dir, "ix"), func(_ string, e fs.DirEntry, err error) error {
		if info, ierr := e.Info(); err == nil && ierr == nil && info.Mode().IsRegular() {
			onDisk += info.Size()
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := m["folio_index_disk_bytes{index=ix}"]; got <= 0 || got < float64(onDisk)/2 || got > float64(onDisk)*2 {
		t.Errorf("folio_index_disk_bytes %v, the folder holds %d bytes", got, onDisk)
	}

	// A query.
	if _, err := client.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "ix", Query: "rocket fuel"}); err != nil {
		t.Fatal(err)
	}
	// Inserts, each a commit of a segment, enough segments for the
	// background compaction to merge them, and a delete.
	for i := range 10 {
		if _, err := client.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{IndexName: "ix", Uri: fmt.Sprintf("tea%d.md", i), Text: "Green tea steeps for two minutes."}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.DeleteDocument(ctx, &vectrapb.DeleteDocumentRequest{IndexName: "ix", Uri: "tea0.md"}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.DeleteDocument(ctx, &vectrapb.DeleteDocumentRequest{IndexName: "ix", Uri: bigPath}); err != nil {
		t.Fatal(err)
	}
	// An over-size query, refused.
	if _, err := client.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "ix", Query: strings.Repeat("x", 2000)}); err == nil {
		t.Fatal("an over-size query was answered")
	}
	// A rate-limited embeddings call.
	if _, err := client.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "ix", Query: "throttle me"}); err == nil {
		t.Fatal("a throttled query was answered")
	}

	var after map[string]float64
	deadline := time.Now().Add(30 * time.Second)
	for {
		after = scrape(t, addr)
		if after["folio_index_compactions_total{index=ix}"] > m["folio_index_compactions_total{index=ix}"] || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	grew := func(key string) {
		t.Helper()
		if after[key] <= m[key] {
			t.Errorf("%s stayed at %v", key, after[key])
		}
	}
	grew(handled)
	grew("folio_index_queries_total{index=ix}")
	grew("folio_index_query_seconds_total{index=ix}")
	grew("folio_index_commits_total{index=ix}")
	grew("folio_index_commit_seconds_total{index=ix}")
	grew("folio_index_commit_merges_total{index=ix}")
	grew("folio_index_compactions_total{index=ix}")
	grew("folio_index_compaction_seconds_total{index=ix}")
	if after["folio_index_tombstones{index=ix}"] >= 4096 {
		t.Errorf("the compaction left %v tombstones", after["folio_index_tombstones{index=ix}"])
	}
	grew(`folio_grpc_server_handled_total{grpc_code=OK,grpc_method=UpsertDocument,grpc_service=vectra.VectraService,grpc_type=unary}`)
	grew(`folio_grpc_server_handling_seconds{grpc_method=QueryDocuments,grpc_service=vectra.VectraService,grpc_type=unary}`)
	grew("folio_server_refused_calls_total{method=/vectra.VectraService/QueryDocuments,reason=query_too_large}")
	grew("folio_embeddings_calls_total{model=hosted openai:test-embed,status=rate_limited}")
	grew("folio_embeddings_calls_total{model=hosted openai:test-embed,status=success}")

	resp, err := http.Get("http://" + addr + "/debug/pprof/")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("--pprof: %v, %v", resp, err)
	}
}

// --log-format json --log-level debug logs the engine's commits as JSON
// lines on stderr, with their duration and size; bad values are usage
// errors.
func TestLogFlags(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	must(t, dir, 0, "create", "ix", "--hash-dims", "32")
	r := must(t, dir, 0, "--log-format", "json", "--log-level", "debug", "add", "ix", "--uri", "docs", "-q")
	committed := false
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a stderr line is not JSON: %q", line)
		}
		if rec["msg"] == "committed" && rec["level"] == "DEBUG" && rec["took"] != nil && rec["items"] != nil {
			committed = true
		}
	}
	if !committed {
		t.Errorf("no commit logged:\n%s", r.stderr)
	}
	if r := must(t, dir, 0, "add", "ix", "--uri", "docs"); strings.Contains(r.stderr, "committed") {
		t.Errorf("the default level logs commits:\n%s", r.stderr)
	}
	must(t, dir, 2, "--log-format", "xml", "add", "ix", "--uri", "docs")
	must(t, dir, 2, "--log-level", "loud", "add", "ix", "--uri", "docs")
}
