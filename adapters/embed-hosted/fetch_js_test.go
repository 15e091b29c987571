//go:build js && wasm

package embedhosted

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/foliovec/folio/conformance/embedtest"
	"github.com/foliovec/folio/core"
)

// browserClient is a self-hosted client of TestInBrowser's fake for model.
func browserClient(t testing.TB, model string, edit func(*Options)) *HostedEmbeddings {
	t.Helper()
	endpoint := os.Getenv("FOLIO_EMBED_SERVER")
	if endpoint == "" {
		t.Fatal("FOLIO_EMBED_SERVER is not set: run these tests through TestInBrowser")
	}
	o := Options{OSSModel: model, OSSEndpoint: endpoint, RetryPolicy: []time.Duration{}}
	if edit != nil {
		edit(&o)
	}
	h, err := New(&o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Through the page's fetch the client passes the same suite as through
// Go's client.
func TestFetchConformance(t *testing.T) {
	embedtest.Run(t, func(t testing.TB) core.EmbeddingsModel { return browserClient(t, testOSSModel, nil) },
		embedtest.Capabilities{Deterministic: true, Normalized: true, Dimensions: fakeDimensions})
}

// Go's client is never linked into a page: asking for it is an error.
func TestFetchRefusesAnHTTPClient(t *testing.T) {
	_, err := New(&Options{OSSModel: "m", OSSEndpoint: "http://127.0.0.1:1", HTTPClient: &http.Client{}})
	if !errors.Is(err, core.ErrInvalidArgument) || !strings.Contains(err.Error(), "HTTPClient") {
		t.Errorf("New with an HTTPClient in js/wasm = %v, want ErrInvalidArgument naming HTTPClient", err)
	}
}

// Statuses, their messages and the retry of a 429 work through fetch.
func TestFetchStatusesAndRetries(t *testing.T) {
	ctx := context.Background()
	_, err := browserClient(t, "fail", nil).CreateEmbeddings(ctx, []string{"x"})
	var ee *core.EmbeddingsError
	if !errors.As(err, &ee) || ee.Status != core.EmbeddingsFailed || !strings.Contains(ee.Message, "no such model") || !strings.Contains(ee.Message, "500") {
		t.Errorf("a 500: %v, want status error with the code and the server's message", err)
	}
	retrying := browserClient(t, "limited", func(o *Options) { o.RetryPolicy = []time.Duration{time.Millisecond, time.Millisecond} })
	for i := range 2 {
		resp, err := retrying.CreateEmbeddings(ctx, []string{"a", "b"})
		if err != nil || len(resp.Output) != 2 {
			t.Errorf("call %d through a 429: %v, %d vectors; want 2 vectors after the retry", i, err, len(resp.Output))
		}
	}
	_, err = browserClient(t, "limited", nil).CreateEmbeddings(ctx, []string{"a"})
	if !errors.Is(err, core.ErrRateLimited) {
		t.Errorf("a 429 with no retries left: %v, want ErrRateLimited", err)
	}
}

// The context's end aborts the request in flight.
func TestFetchContextAbortsTheRequest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := browserClient(t, "slow", nil).CreateEmbeddings(ctx, []string{"x"})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("after %v: %v, want DeadlineExceeded at once", time.Since(start), err)
	}
}
