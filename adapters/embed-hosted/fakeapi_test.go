package embedhosted

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Credentials and names the fake servers expect.
const (
	testAPIKey     = "sk-test-0123456789abcdef"
	testCloudKey   = "cloud-key-0123456789abcdef"
	testModel      = "text-embedding-3-small"
	testDeployment = "emb-deploy"
	testOSSModel   = "nomic-embed-text"
	fakeDimensions = 8
)

// fakeAPI is a real HTTP server on 127.0.0.1 that mimics one variant's
// embeddings API. Every request is checked against what the variant must
// send (method, path, query, headers, body); a request that differs is
// answered 400 and fails the test. Requests are then answered by script, one
// reply per request, and by success once the script is spent.
type fakeAPI struct {
	t       testing.TB
	variant Variant
	server  *httptest.Server
	// Dimensions the body must carry (0: the key must be absent).
	wantDimensions int
	// Organization the hosted variant must send ("" : no header).
	wantOrganization string
	// Headers that must have exactly these values.
	wantHeaders http.Header
	// api-version the cloud-hosted variant must send ("": the default).
	wantAPIVersion string

	mu       sync.Mutex
	script   []reply
	requests []fakeRequest
	// received gets one value per request, when not nil.
	received chan fakeRequest
}

// fakeRequest is what the server received.
type fakeRequest struct {
	URL    *url.URL
	Header http.Header
	Body   map[string]json.RawMessage
	Input  []string
}

// reply answers one request.
type reply func(w http.ResponseWriter, r *http.Request, req fakeRequest)

// newFakeAPI starts a server for v (TLS for the cloud-hosted variant, whose
// endpoint must be HTTPS) and stops it when the test ends.
func newFakeAPI(t testing.TB, v Variant, script ...reply) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, variant: v, script: script}
	if v == VariantCloudHosted {
		f.server = httptest.NewTLSServer(http.HandlerFunc(f.serve))
	} else {
		f.server = httptest.NewServer(http.HandlerFunc(f.serve))
	}
	t.Cleanup(f.server.Close)
	return f
}

// options returns valid options for the server's variant.
func (f *fakeAPI) options() Options {
	switch f.variant {
	case VariantCloudHosted:
		return Options{
			CloudAPIKey:     testCloudKey,
			CloudEndpoint:   f.server.URL,
			CloudDeployment: testDeployment,
			HTTPClient:      f.server.Client(),
		}
	case VariantSelfHosted:
		return Options{OSSModel: testOSSModel, OSSEndpoint: f.server.URL}
	default:
		return Options{APIKey: testAPIKey, Model: testModel, Endpoint: f.server.URL}
	}
}

// client returns New(options) after edit, failing the test on error.
func (f *fakeAPI) client(edit func(*Options)) *HostedEmbeddings {
	f.t.Helper()
	o := f.options()
	if edit != nil {
		edit(&o)
	}
	if o.Dimensions != 0 && f.wantDimensions == 0 {
		f.wantDimensions = o.Dimensions
	}
	if o.Organization != "" && f.wantOrganization == "" {
		f.wantOrganization = o.Organization
	}
	h, err := New(&o)
	if err != nil {
		f.t.Fatalf("New: %v", err)
	}
	return h
}

func (f *fakeAPI) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fakeAPI) request(i int) fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[i]
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	req, problems := f.check(r)
	if req.Body == nil && len(problems) == 0 {
		return // the client went away before sending its body
	}
	if len(problems) > 0 {
		f.t.Errorf("%s request %s %s breaks the wire contract:\n\t%s",
			f.variant, r.Method, r.URL, strings.Join(problems, "\n\t"))
		http.Error(w, strings.Join(problems, "; "), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	n := len(f.requests)
	f.requests = append(f.requests, req)
	var answer reply = replyEmbeddings
	if n < len(f.script) {
		answer = f.script[n]
	}
	f.mu.Unlock()
	if f.received != nil {
		f.received <- req
	}
	answer(w, r, req)
}

// check compares a request with the variant's wire contract.
func (f *fakeAPI) check(r *http.Request) (fakeRequest, []string) {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if r.Method != http.MethodPost {
		bad("method %s, want POST", r.Method)
	}
	wantPath, wantQuery := "/v1/embeddings", ""
	if f.variant == VariantCloudHosted {
		version := f.wantAPIVersion
		if version == "" {
			version = DefaultCloudAPIVersion
		}
		wantPath = "/openai/deployments/" + testDeployment + "/embeddings"
		wantQuery = "api-version=" + version
	}
	if r.URL.Path != wantPath {
		bad("path %q, want %q", r.URL.Path, wantPath)
	}
	if r.URL.RawQuery != wantQuery {
		bad("query %q, want %q", r.URL.RawQuery, wantQuery)
	}

	header := func(name, want string) {
		if got := r.Header.Values(name); len(got) != 1 || got[0] != want {
			bad("header %s = %q, want [%q]", name, got, want)
		}
	}
	absent := func(name string) {
		if got := r.Header.Values(name); len(got) != 0 {
			bad("header %s = %q, want none", name, got)
		}
	}
	if f.wantHeaders.Get("Content-Type") == "" {
		header("Content-Type", "application/json")
	}
	if f.wantHeaders.Get("User-Agent") == "" {
		header("User-Agent", DefaultUserAgent)
	}
	for name, values := range f.wantHeaders {
		header(name, values[0])
	}
	switch f.variant {
	case VariantHosted:
		header("Authorization", "Bearer "+testAPIKey)
		absent("Api-Key")
		if f.wantOrganization != "" {
			header("OpenAI-Organization", f.wantOrganization)
		} else {
			absent("OpenAI-Organization")
		}
	case VariantCloudHosted:
		header("Api-Key", testCloudKey)
		if f.wantHeaders.Get("Authorization") == "" {
			absent("Authorization")
		}
		absent("OpenAI-Organization")
	case VariantSelfHosted:
		if f.wantHeaders.Get("Authorization") == "" {
			absent("Authorization")
		}
		absent("Api-Key")
		absent("OpenAI-Organization")
	}

	req := fakeRequest{URL: r.URL, Header: r.Header.Clone()}
	var raw bytes.Buffer
	if _, err := raw.ReadFrom(r.Body); err != nil {
		// The client went away mid-body (a cancelled call): nothing to
		// check, and nothing to answer.
		return req, nil
	}
	dec := json.NewDecoder(&raw)
	if err := dec.Decode(&req.Body); err != nil {
		bad("body is not a JSON object: %v", err)
		return req, problems
	}
	for key := range req.Body {
		if key != "input" && key != "model" && key != "dimensions" {
			bad("body has unexpected key %q", key)
		}
	}
	if err := json.Unmarshal(req.Body["input"], &req.Input); err != nil || req.Input == nil {
		bad("body input %s is not an array of strings", req.Body["input"])
	}
	wantModel := ""
	switch f.variant {
	case VariantHosted:
		wantModel = testModel
	case VariantSelfHosted:
		wantModel = testOSSModel
	}
	if model, ok := req.Body["model"]; wantModel == "" && ok {
		bad("body has model %s, want none", model)
	} else if wantModel != "" && string(model) != fmt.Sprintf("%q", wantModel) {
		bad("body model %s, want %q", model, wantModel)
	}
	if dims, ok := req.Body["dimensions"]; f.wantDimensions == 0 && ok {
		bad("body has dimensions %s, want none", dims)
	} else if f.wantDimensions != 0 && string(dims) != fmt.Sprint(f.wantDimensions) {
		bad("body dimensions %s, want %d", dims, f.wantDimensions)
	}
	return req, problems
}

// fakeVector is the fake servers' embedding of text: deterministic, unit
// length, different for different texts.
func fakeVector(text string, dims int) []float32 {
	v := make([]float32, dims)
	var norm float64
	for i := range v {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d\x00%s", i, text)
		x := float64(h.Sum64()%2001)/1000 - 1
		v[i] = float32(x)
		norm += x * x
	}
	if norm == 0 {
		v[0], norm = 1, 1
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(norm))
	}
	return v
}

// fakeVectors is fakeVector for each input, in input order.
func fakeVectors(inputs []string, dims int) [][]float32 {
	out := make([][]float32, len(inputs))
	for i, text := range inputs {
		out[i] = fakeVector(text, dims)
	}
	return out
}

// replyEmbeddings answers like the hosted API: one item per input, listed
// in reverse index order (clients must sort), with model and usage.
func replyEmbeddings(w http.ResponseWriter, _ *http.Request, req fakeRequest) {
	dims := fakeDimensions
	if raw, ok := req.Body["dimensions"]; ok {
		_ = json.Unmarshal(raw, &dims)
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	items := make([]item, 0, len(req.Input))
	for i := len(req.Input) - 1; i >= 0; i-- {
		items = append(items, item{"embedding", i, fakeVector(req.Input[i], dims)})
	}
	tokens := 0
	for _, text := range req.Input {
		tokens += len(strings.Fields(text))
	}
	model := testModel
	if raw, ok := req.Body["model"]; ok {
		_ = json.Unmarshal(raw, &model)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data":   items,
		"model":  model,
		"usage":  map[string]any{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// replyStatus answers with status, a content type and a raw body.
func replyStatus(status int, contentType, body string) reply {
	return func(w http.ResponseWriter, _ *http.Request, _ fakeRequest) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// replyRateLimited answers 429 in the hosted API's shape, with a
// Retry-After header when retryAfter is not "".
func replyRateLimited(retryAfter string) reply {
	return func(w http.ResponseWriter, _ *http.Request, _ fakeRequest) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		writeJSON(w, http.StatusTooManyRequests, map[string]any{
			"error": map[string]any{"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"},
		})
	}
}

// replyBody answers 200 with a raw JSON body.
func replyBody(body string) reply {
	return replyStatus(http.StatusOK, "application/json", body)
}

// replyHang holds the request until the client gives up on it.
func replyHang(_ http.ResponseWriter, r *http.Request, _ fakeRequest) {
	<-r.Context().Done()
}

// recordSleeps replaces h's retry wait with one that records the delays and
// returns at once (or ctx's error).
func recordSleeps(h *HostedEmbeddings) *[]time.Duration {
	var mu sync.Mutex
	delays := new([]time.Duration)
	h.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		*delays = append(*delays, d)
		return ctx.Err()
	}
	return delays
}

// allVariants lists the variants in table order.
func allVariants() []Variant {
	return []Variant{VariantHosted, VariantCloudHosted, VariantSelfHosted}
}
