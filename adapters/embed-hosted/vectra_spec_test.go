package embedhosted

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliovec/folio/core"
)

// TestVectraOpenAIEmbeddingsSpec ports Vectra 0.15's src/OpenAIEmbeddings.spec.ts,
// one subtest per case, named as there. Vectra stubs fetch; here
// every request goes to a fake API server on 127.0.0.1 that checks the wire
// contract. Folio's User-Agent replaces Vectra's "AlphaWave", and inputs are
// always a []string, sent as a JSON array.
func TestVectraOpenAIEmbeddingsSpec(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"Azure: trims trailing slash, enforces https, defaults apiVersion and maxTokens", func(t *testing.T) {
			h, err := New(&Options{CloudAPIKey: testCloudKey, CloudEndpoint: "https://example.com/", CloudDeployment: "dep"})
			if err != nil {
				t.Fatal(err)
			}
			o := h.Options()
			wantEqual(t, o.CloudEndpoint, "https://example.com")
			wantEqual(t, o.CloudAPIVersion, "2023-05-15")
			wantEqual(t, h.MaxTokens(), 500)
			wantEqual(t, h.Variant(), VariantCloudHosted)
		}},
		{"Azure: throws for non-https endpoint", func(t *testing.T) {
			_, err := New(&Options{CloudAPIKey: testCloudKey, CloudEndpoint: "http://example.com", CloudDeployment: "dep"})
			if !errors.Is(err, core.ErrInvalidArgument) || !strings.Contains(err.Error(), `"http://example.com"`) ||
				!strings.Contains(err.Error(), "must be an https url") {
				t.Errorf("err = %v, want an invalid-argument error quoting the endpoint", err)
			}
		}},
		{"OSS: selects OSS client type, defaults retryPolicy, respects maxTokens", func(t *testing.T) {
			h, err := New(&Options{OSSModel: "oss-emb", OSSEndpoint: "https://oss.example.com", MaxTokens: 1234})
			if err != nil {
				t.Fatal(err)
			}
			wantEqual(t, h.Options().RetryPolicy, []time.Duration{2000 * time.Millisecond, 5000 * time.Millisecond})
			wantEqual(t, h.MaxTokens(), 1234)
			wantEqual(t, h.Variant(), VariantSelfHosted)
		}},
		{"OpenAI: selects OpenAI client type and defaults retryPolicy", func(t *testing.T) {
			h, err := New(&Options{APIKey: "sk", Model: "text-embedding-3-small"})
			if err != nil {
				t.Fatal(err)
			}
			wantEqual(t, h.Options().RetryPolicy, []time.Duration{2000 * time.Millisecond, 5000 * time.Millisecond})
			wantEqual(t, h.Variant(), VariantHosted)
		}},
		{"Azure: URL formation and dimensions passthrough", func(t *testing.T) {
			api := newFakeAPI(t, VariantCloudHosted)
			h := api.client(func(o *Options) { o.CloudEndpoint += "/"; o.Dimensions = 256 })
			if _, err := h.CreateEmbeddings(ctx, []string{"hello"}); err != nil {
				t.Fatal(err)
			}
			req := api.request(0)
			wantEqual(t, req.URL.String(), "/openai/deployments/"+testDeployment+"/embeddings?api-version=2023-05-15")
			wantEqual(t, req.Input, []string{"hello"})
			wantEqual(t, string(req.Body["dimensions"]), "256")
		}},
		{"OSS: URL formation and model injection", func(t *testing.T) {
			api := newFakeAPI(t, VariantSelfHosted)
			if _, err := api.client(nil).CreateEmbeddings(ctx, []string{"text"}); err != nil {
				t.Fatal(err)
			}
			req := api.request(0)
			wantEqual(t, req.URL.String(), "/v1/embeddings")
			wantEqual(t, req.Input, []string{"text"})
			wantEqual(t, string(req.Body["model"]), `"`+testOSSModel+`"`)
		}},
		{"OpenAI: URL formation (default endpoint) and model injection", func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted)
			rt := &redirectTransport{to: api.server.URL}
			h, err := New(&Options{APIKey: testAPIKey, Model: testModel, HTTPClient: &http.Client{Transport: rt}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.CreateEmbeddings(ctx, []string{"x"}); err != nil {
				t.Fatal(err)
			}
			wantEqual(t, rt.urls(), []string{"https://api.openai.com/v1/embeddings"})
			wantEqual(t, string(api.request(0).Body["model"]), `"`+testModel+`"`)
		}},
		{"OpenAI: URL formation (custom endpoint)", func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted)
			rt := &redirectTransport{to: api.server.URL}
			h, err := New(&Options{APIKey: testAPIKey, Model: testModel, Endpoint: "https://custom",
				HTTPClient: &http.Client{Transport: rt}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.CreateEmbeddings(ctx, []string{"x"}); err != nil {
				t.Fatal(err)
			}
			wantEqual(t, rt.urls(), []string{"https://custom/v1/embeddings"})
		}},
		{"Azure: headers include Content-Type, User-Agent, api-key", func(t *testing.T) {
			api := newFakeAPI(t, VariantCloudHosted)
			if _, err := api.client(nil).CreateEmbeddings(ctx, []string{"x"}); err != nil {
				t.Fatal(err)
			}
			hdr := api.request(0).Header
			wantEqual(t, hdr.Get("Content-Type"), "application/json")
			wantEqual(t, hdr.Get("User-Agent"), DefaultUserAgent)
			wantEqual(t, hdr.Get("api-key"), testCloudKey)
		}},
		{"OpenAI: headers include Authorization and OpenAI-Organization when provided", func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted)
			h := api.client(func(o *Options) { o.Organization = "org1" })
			if _, err := h.CreateEmbeddings(ctx, []string{"x"}); err != nil {
				t.Fatal(err)
			}
			hdr := api.request(0).Header
			wantEqual(t, hdr.Get("Authorization"), "Bearer "+testAPIKey)
			wantEqual(t, hdr.Get("OpenAI-Organization"), "org1")
		}},
		{"Respects pre-supplied headers from requestConfig and does not overwrite them", func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted)
			api.wantHeaders = http.Header{"Content-Type": {"application/x-custom"}, "User-Agent": {"MyUA"}, "X-Custom": {"1"}}
			h := api.client(func(o *Options) { o.Headers = api.wantHeaders.Clone() })
			if _, err := h.CreateEmbeddings(ctx, []string{"x"}); err != nil {
				t.Fatal(err)
			}
			hdr := api.request(0).Header
			wantEqual(t, hdr.Get("Content-Type"), "application/x-custom")
			wantEqual(t, hdr.Get("User-Agent"), "MyUA")
			wantEqual(t, hdr.Get("X-Custom"), "1")
			wantEqual(t, hdr.Get("Authorization"), "Bearer "+testAPIKey)
		}},
		{"429 retry path obeys retryPolicy delays and eventually succeeds", func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted, replyRateLimited(""), replyRateLimited(""))
			h := api.client(func(o *Options) { o.RetryPolicy = []time.Duration{10 * time.Millisecond, 20 * time.Millisecond} })
			sleeps := recordSleeps(h)
			resp, err := h.CreateEmbeddings(ctx, []string{"x"})
			wantSuccess(t, resp, err, []string{"x"}, fakeDimensions)
			wantEqual(t, api.count(), 3)
			wantEqual(t, *sleeps, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond})
		}},
		{"429 with empty retryPolicy returns rate_limited", func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted, replyRateLimited(""))
			h := api.client(func(o *Options) { o.RetryPolicy = []time.Duration{} })
			resp, err := h.CreateEmbeddings(ctx, []string{"x"})
			wantFailure(t, resp, err, core.EmbeddingsRateLimited, "rate limit")
		}},
		{"Success maps embeddings sorted by index", func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted, replyBody(`{"object":"list","model":"any","data":[
				{"index":2,"object":"embedding","embedding":[3]},
				{"index":0,"object":"embedding","embedding":[1]},
				{"index":1,"object":"embedding","embedding":[2]}],"usage":{"prompt_tokens":1,"total_tokens":1}}`))
			resp, err := api.client(nil).CreateEmbeddings(ctx, []string{"a", "b", "c"})
			if err != nil {
				t.Fatal(err)
			}
			wantEqual(t, resp.Status, core.EmbeddingsSuccess)
			wantEqual(t, resp.Output, [][]float32{{1}, {2}, {3}})
		}},
		{"Non-429 error returns status error with message", func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted, replyStatus(500, "application/json", `{}`))
			resp, err := api.client(nil).CreateEmbeddings(ctx, []string{"x"})
			wantFailure(t, resp, err, core.EmbeddingsFailed, "http 500 Internal Server Error")
		}},
		{"logRequests true logs request and response details", func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted)
			var logs bytes.Buffer
			h := api.client(func(o *Options) {
				o.LogRequests = true
				o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			})
			if _, err := h.CreateEmbeddings(ctx, []string{"x"}); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"embedhosted: request", "method=POST", "status=200", "duration="} {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("log %q lacks %q", logs.String(), want)
				}
			}
		}},
		{"Input handling: string preserved in body", func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted)
			if _, err := api.client(nil).CreateEmbeddings(ctx, []string{"hello"}); err != nil {
				t.Fatal(err)
			}
			wantEqual(t, string(api.request(0).Body["input"]), `["hello"]`)
		}},
		{"Input handling: string[] preserved in body", func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted)
			if _, err := api.client(nil).CreateEmbeddings(ctx, []string{"a", "b"}); err != nil {
				t.Fatal(err)
			}
			wantEqual(t, string(api.request(0).Body["input"]), `["a","b"]`)
		}},
		{"maxTokens default and override", func(t *testing.T) {
			def, err := New(&Options{APIKey: "sk", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			over, err := New(&Options{APIKey: "sk", Model: "m", MaxTokens: 1024})
			if err != nil {
				t.Fatal(err)
			}
			wantEqual(t, def.MaxTokens(), 500)
			wantEqual(t, over.MaxTokens(), 1024)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

// redirectTransport records each request's address and sends it to the
// local server at to instead, so a test can see what the client would have
// posted to a remote endpoint.
type redirectTransport struct {
	to   string
	mu   sync.Mutex
	seen []string
}

func (rt *redirectTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.mu.Lock()
	rt.seen = append(rt.seen, r.URL.String())
	rt.mu.Unlock()
	target, err := url.Parse(rt.to)
	if err != nil {
		return nil, err
	}
	local := r.Clone(r.Context())
	local.URL.Scheme, local.URL.Host, local.Host = target.Scheme, target.Host, ""
	return http.DefaultTransport.RoundTrip(local)
}

func (rt *redirectTransport) urls() []string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]string(nil), rt.seen...)
}

func TestVectraSpecHelperSeesEveryAddress(t *testing.T) {
	// The redirect transport must report what the client addressed, not
	// where it was sent, or the URL cases above would pass vacuously.
	api := newFakeAPI(t, VariantSelfHosted)
	rt := &redirectTransport{to: api.server.URL}
	h, err := New(&Options{OSSModel: testOSSModel, OSSEndpoint: "http://elsewhere.invalid:9", HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.CreateEmbeddings(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if got := rt.urls(); !reflect.DeepEqual(got, []string{"http://elsewhere.invalid:9/v1/embeddings"}) {
		t.Errorf("urls = %v", got)
	}
}
