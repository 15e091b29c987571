//go:build !noserver

package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
)

// otlpReceiver is an OTLP/HTTP trace receiver on 127.0.0.1 that keeps the
// spans it is sent.
type otlpReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []*tracepb.Span
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		var msg coltracepb.ExportTraceServiceRequest
		if err != nil || req.URL.Path != "/v1/traces" || proto.Unmarshal(body, &msg) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rs := range msg.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				r.spans = append(r.spans, ss.GetSpans()...)
			}
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *otlpReceiver) byName() map[string]*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]*tracepb.Span{}
	for _, s := range r.spans {
		out[s.GetName()] = s
	}
	return out
}

// With an OTLP endpoint in the standard variables, folio serve sends
// traces: one QueryDocuments call gives an RPC span joined to the caller's
// trace (W3C traceparent), with children for the engine's query (and the
// embeddings call and its HTTP request inside it) and for reading the
// chunk texts.
func TestServeTraces(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir)
	upstream := embeddingsServer(t, 0)
	keys := writeKeys(t, dir, upstream.URL, 0)
	must(t, dir, 0, "create", "ix", "--keys", keys)
	must(t, dir, 0, "add", "ix", "--keys", keys, "--uri", "docs")
	recv := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", recv.URL+"/v1/traces")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")

	port := freePort(t)
	pidFile := filepath.Join(dir, "folio.pid")
	must(t, dir, 0, "serve", "ix", "--keys", keys, "--port", fmt.Sprint(port), "--daemon", "--pid-file", pidFile)
	t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pidFile).Run() })
	client, ctx := dialServer(t, port)

	traceID, parentID := "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	ctx = metadata.AppendToOutgoingContext(ctx, "traceparent", "00-"+traceID+"-"+parentID+"-01")
	if _, err := client.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "ix", Query: "rocket fuel"}); err != nil {
		t.Fatal(err)
	}
	var spans map[string]*tracepb.Span
	deadline := time.Now().Add(30 * time.Second)
	for {
		spans = recv.byName()
		if spans["folio.read_texts"] != nil && spans["vectra.VectraService/QueryDocuments"] != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	rpc := spans["vectra.VectraService/QueryDocuments"]
	if rpc == nil {
		t.Fatalf("no RPC span among %d spans: %v", len(spans), names(spans))
	}
	if hex.EncodeToString(rpc.GetTraceId()) != traceID || hex.EncodeToString(rpc.GetParentSpanId()) != parentID {
		t.Errorf("the RPC span is in trace %x under %x, want the caller's %s under %s", rpc.GetTraceId(), rpc.GetParentSpanId(), traceID, parentID)
	}
	childOf := func(child, parent string) {
		t.Helper()
		c, p := spans[child], spans[parent]
		if c == nil || p == nil {
			t.Errorf("no %s span under %s: spans %v", child, parent, names(spans))
			return
		}
		if string(c.GetParentSpanId()) != string(p.GetSpanId()) || string(c.GetTraceId()) != string(p.GetTraceId()) {
			t.Errorf("%s is not a child of %s", child, parent)
		}
	}
	childOf("folio.query", "vectra.VectraService/QueryDocuments")
	childOf("folio.read_texts", "vectra.VectraService/QueryDocuments")
	childOf("folio.embeddings", "folio.query")
	childOf("HTTP POST", "folio.embeddings")
}

func names(spans map[string]*tracepb.Span) []string {
	var out []string
	for n := range spans {
		out = append(out, n)
	}
	return out
}
