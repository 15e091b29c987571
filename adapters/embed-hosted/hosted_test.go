package embedhosted

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliovec/folio/conformance/embedtest"
	"github.com/foliovec/folio/core"
)

// wantFailure checks that a failed call returned a *core.EmbeddingsError
// and a response agreeing on status and message, and that the message
// holds every fragment.
func wantFailure(t *testing.T, resp core.EmbeddingsResponse, err error, status core.EmbeddingsStatus, fragments ...string) *core.EmbeddingsError {
	t.Helper()
	if verr := embedtest.CheckResponse(nil, resp, err); verr != nil {
		t.Errorf("the failure breaks the port's contract: %v", verr)
	}
	var ee *core.EmbeddingsError
	if !errors.As(err, &ee) {
		t.Fatalf("err = %v (%T), want *core.EmbeddingsError", err, err)
	}
	if ee.Status != status || resp.Status != status {
		t.Errorf("status: error %q, response %q, want %q", ee.Status, resp.Status, status)
	}
	if resp.Message != ee.Message {
		t.Errorf("response message %q differs from error message %q", resp.Message, ee.Message)
	}
	if resp.Output != nil {
		t.Errorf("failed response has output %v", resp.Output)
	}
	for _, f := range fragments {
		if !strings.Contains(ee.Message, f) {
			t.Errorf("message %q lacks %q", ee.Message, f)
		}
	}
	sentinel := map[core.EmbeddingsStatus]error{
		core.EmbeddingsFailed:      core.ErrEmbeddingsFailed,
		core.EmbeddingsRateLimited: core.ErrRateLimited,
		core.EmbeddingsCancelled:   core.ErrEmbeddingsCancelled,
	}[status]
	if !errors.Is(err, sentinel) {
		t.Errorf("errors.Is(err, %v) = false", sentinel)
	}
	for _, secret := range []string{testAPIKey, testCloudKey} {
		if strings.Contains(err.Error(), secret) || strings.Contains(resp.Message, secret) {
			t.Errorf("message leaks a key: %q", err.Error())
		}
	}
	return ee
}

// wantSuccess checks a successful call returned fake vectors for inputs.
func wantSuccess(t *testing.T, resp core.EmbeddingsResponse, err error, inputs []string, dims int) {
	t.Helper()
	if err != nil {
		t.Fatalf("CreateEmbeddings: %v", err)
	}
	if verr := embedtest.CheckResponse(inputs, resp, err); verr != nil {
		t.Errorf("the response breaks the port's contract: %v", verr)
	}
	if resp.Status != core.EmbeddingsSuccess || resp.Message != "" {
		t.Errorf("status %q message %q, want success and no message", resp.Status, resp.Message)
	}
	if want := fakeVectors(inputs, dims); !reflect.DeepEqual(resp.Output, want) {
		t.Errorf("output = %v, want %v (one vector per input, in input order)", resp.Output, want)
	}
}

func TestEachVariantSendsItsWireRequest(t *testing.T) {
	for _, v := range allVariants() {
		t.Run(string(v), func(t *testing.T) {
			api := newFakeAPI(t, v)
			h := api.client(nil)
			inputs := []string{"alpha", "beta <b> & \"gamma\"", "δέλτα"}
			resp, err := h.CreateEmbeddings(context.Background(), inputs)
			wantSuccess(t, resp, err, inputs, fakeDimensions)
			if api.count() != 1 {
				t.Fatalf("server got %d requests, want 1", api.count())
			}
			if got := api.request(0).Input; !reflect.DeepEqual(got, inputs) {
				t.Errorf("body input = %q, want %q unchanged and in order", got, inputs)
			}
		})
	}
}

func TestResponseModelAndUsageAreReturnedWhenPresent(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		wantModel string
		wantUsage map[string]any
	}{
		{"model and usage are copied from the response",
			`{"data":[{"index":0,"embedding":[1,0]}],"model":"m-1","usage":{"prompt_tokens":3,"total_tokens":3}}`,
			"m-1", map[string]any{"prompt_tokens": 3.0, "total_tokens": 3.0}},
		{"absent model and usage stay empty",
			`{"data":[{"index":0,"embedding":[1,0]}]}`, "", nil},
		{"a model of another type is left out",
			`{"data":[{"index":0,"embedding":[1,0]}],"model":7,"usage":"many"}`, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, VariantSelfHosted, replyBody(tt.body))
			resp, err := api.client(nil).CreateEmbeddings(context.Background(), []string{"x"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Model != tt.wantModel || !reflect.DeepEqual(resp.Usage, tt.wantUsage) {
				t.Errorf("model %q usage %v, want %q %v", resp.Model, resp.Usage, tt.wantModel, tt.wantUsage)
			}
			if !reflect.DeepEqual(resp.Output, [][]float32{{1, 0}}) {
				t.Errorf("output = %v", resp.Output)
			}
		})
	}
}

func TestDimensionsAreSentOnlyWhenSet(t *testing.T) {
	for _, v := range allVariants() {
		for _, dims := range []int{0, 3} {
			t.Run(string(v)+"/"+map[bool]string{true: "unset", false: "set"}[dims == 0], func(t *testing.T) {
				// The fake server fails the test when "dimensions" is
				// present and unset, or absent or different when set.
				api := newFakeAPI(t, v)
				h := api.client(func(o *Options) { o.Dimensions = dims })
				want := dims
				if dims == 0 {
					want = fakeDimensions
				}
				resp, err := h.CreateEmbeddings(context.Background(), []string{"a", "b"})
				wantSuccess(t, resp, err, []string{"a", "b"}, want)
				_, sent := api.request(0).Body["dimensions"]
				if sent != (dims != 0) {
					t.Errorf("dimensions sent = %v with Dimensions %d", sent, dims)
				}
			})
		}
	}
}

func TestOrganizationHeaderIsSentOnlyWhenSet(t *testing.T) {
	for _, org := range []string{"", "org-42"} {
		t.Run("organization "+org, func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted)
			h := api.client(func(o *Options) { o.Organization = org })
			if _, err := h.CreateEmbeddings(context.Background(), []string{"x"}); err != nil {
				t.Fatal(err)
			}
			if got := api.request(0).Header.Get("OpenAI-Organization"); got != org {
				t.Errorf("OpenAI-Organization = %q, want %q", got, org)
			}
		})
	}
}

func TestCallerHeadersAreSentAndCredentialsWin(t *testing.T) {
	for _, v := range allVariants() {
		t.Run(string(v), func(t *testing.T) {
			api := newFakeAPI(t, v)
			api.wantHeaders = http.Header{
				"Content-Type": {"application/json; charset=utf-8"},
				"User-Agent":   {"my-app/1.0"},
				"X-Custom":     {"1"},
			}
			h := api.client(func(o *Options) {
				o.Headers = http.Header{
					"Content-Type": {"application/json; charset=utf-8"},
					"User-Agent":   {"my-app/1.0"},
					"X-Custom":     {"1"},
					// The hosted variant's credential replaces this one;
					// the fake server checks the header holds the key.
					"Api-Key": {"stale"},
				}
				if v != VariantCloudHosted {
					o.Headers.Del("Api-Key")
				}
			})
			if _, err := h.CreateEmbeddings(context.Background(), []string{"x"}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestZeroInputsSucceedWithoutARequest(t *testing.T) {
	api := newFakeAPI(t, VariantHosted)
	resp, err := api.client(nil).CreateEmbeddings(context.Background(), nil)
	if err != nil || resp.Status != core.EmbeddingsSuccess || resp.Output == nil || len(resp.Output) != 0 {
		t.Fatalf("got %+v, %v; want success with an empty output", resp, err)
	}
	if api.count() != 0 {
		t.Errorf("server got %d requests, want 0", api.count())
	}
}

func TestRateLimitRetries(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name         string
		policy       []time.Duration
		script       []reply
		wantStatus   core.EmbeddingsStatus
		wantRequests int
		wantSleeps   []time.Duration
	}{
		{"429 is retried after each delay of the policy, then succeeds",
			[]time.Duration{1 * ms, 2 * ms},
			[]reply{replyRateLimited(""), replyRateLimited("")},
			core.EmbeddingsSuccess, 3, []time.Duration{1 * ms, 2 * ms}},
		{"429 after the last delay is rate_limited",
			[]time.Duration{1 * ms, 2 * ms},
			[]reply{replyRateLimited(""), replyRateLimited(""), replyRateLimited("")},
			core.EmbeddingsRateLimited, 3, []time.Duration{1 * ms, 2 * ms}},
		{"an empty policy never retries",
			[]time.Duration{},
			[]reply{replyRateLimited("")},
			core.EmbeddingsRateLimited, 1, nil},
		{"5xx is not retried",
			[]time.Duration{1 * ms},
			[]reply{replyStatus(http.StatusServiceUnavailable, "text/plain", "busy")},
			core.EmbeddingsFailed, 1, nil},
	}
	for _, v := range allVariants() {
		for _, tt := range tests {
			t.Run(string(v)+"/"+tt.name, func(t *testing.T) {
				api := newFakeAPI(t, v, tt.script...)
				h := api.client(func(o *Options) { o.RetryPolicy = tt.policy })
				sleeps := recordSleeps(h)
				resp, err := h.CreateEmbeddings(context.Background(), []string{"x", "y"})
				switch tt.wantStatus {
				case core.EmbeddingsSuccess:
					wantSuccess(t, resp, err, []string{"x", "y"}, fakeDimensions)
				case core.EmbeddingsRateLimited:
					wantFailure(t, resp, err, tt.wantStatus, "rate limit", "http 429 Too Many Requests", "slow down")
				default:
					wantFailure(t, resp, err, tt.wantStatus, "http 503")
				}
				if api.count() != tt.wantRequests {
					t.Errorf("server got %d requests, want %d", api.count(), tt.wantRequests)
				}
				if !reflect.DeepEqual(*sleeps, tt.wantSleeps) {
					t.Errorf("waited %v, want %v", *sleeps, tt.wantSleeps)
				}
			})
		}
	}
}

func TestRateLimitRetriesWaitForReal(t *testing.T) {
	api := newFakeAPI(t, VariantHosted, replyRateLimited(""))
	h := api.client(func(o *Options) { o.RetryPolicy = []time.Duration{time.Millisecond} })
	resp, err := h.CreateEmbeddings(context.Background(), []string{"x"})
	wantSuccess(t, resp, err, []string{"x"}, fakeDimensions)
	if api.count() != 2 {
		t.Errorf("server got %d requests, want 2", api.count())
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	ms := time.Millisecond
	future := func() string { return time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat) }
	tests := []struct {
		name       string
		retryAfter string
		deadline   time.Duration // 0: none
		wantStatus core.EmbeddingsStatus
		wantSleep  func(d time.Duration) bool // nil: no wait
	}{
		{"a longer Retry-After in seconds replaces the policy delay",
			"3", 0, core.EmbeddingsSuccess, func(d time.Duration) bool { return d == 3*time.Second }},
		{"a shorter Retry-After keeps the policy delay",
			"0", 0, core.EmbeddingsSuccess, func(d time.Duration) bool { return d == 5*ms }},
		{"a Retry-After date is waited for",
			"date", 0, core.EmbeddingsSuccess, func(d time.Duration) bool { return d > 25*time.Second && d <= 30*time.Second }},
		{"a malformed Retry-After is ignored",
			"soon", 0, core.EmbeddingsSuccess, func(d time.Duration) bool { return d == 5*ms }},
		{"a Retry-After over one minute ends the call as rate_limited without waiting",
			"61", 0, core.EmbeddingsRateLimited, nil},
		{"a Retry-After past the context deadline ends the call as rate_limited without waiting",
			"3", time.Second, core.EmbeddingsRateLimited, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ra := tt.retryAfter
			if ra == "date" {
				ra = future()
			}
			api := newFakeAPI(t, VariantHosted, replyRateLimited(ra))
			h := api.client(func(o *Options) { o.RetryPolicy = []time.Duration{5 * ms} })
			sleeps := recordSleeps(h)
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			resp, err := h.CreateEmbeddings(ctx, []string{"x"})
			if tt.wantStatus == core.EmbeddingsSuccess {
				wantSuccess(t, resp, err, []string{"x"}, fakeDimensions)
			} else {
				wantFailure(t, resp, err, tt.wantStatus, "rate limit")
			}
			switch {
			case tt.wantSleep == nil && len(*sleeps) != 0:
				t.Errorf("waited %v, want no wait", *sleeps)
			case tt.wantSleep != nil && (len(*sleeps) != 1 || !tt.wantSleep((*sleeps)[0])):
				t.Errorf("waited %v", *sleeps)
			}
		})
	}
}

func TestCancellation(t *testing.T) {
	t.Run("a context cancelled during a retry wait ends the call at once", func(t *testing.T) {
		api := newFakeAPI(t, VariantHosted, replyRateLimited(""))
		api.received = make(chan fakeRequest, 1)
		h := api.client(func(o *Options) { o.RetryPolicy = []time.Duration{time.Hour} })
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			<-api.received
			// Give the client time to read the 429 and start waiting; the
			// outcome does not depend on it.
			time.Sleep(20 * time.Millisecond)
			cancel()
		}()
		type result struct {
			resp core.EmbeddingsResponse
			err  error
		}
		done := make(chan result, 1)
		go func() {
			resp, err := h.CreateEmbeddings(ctx, []string{"x"})
			done <- result{resp, err}
		}()
		select {
		case r := <-done:
			wantFailure(t, r.resp, r.err, core.EmbeddingsCancelled, "context canceled")
			if !errors.Is(r.err, context.Canceled) {
				t.Errorf("errors.Is(err, context.Canceled) = false for %v", r.err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("CreateEmbeddings still waits for its retry after the context was cancelled")
		}
		if api.count() != 1 {
			t.Errorf("server got %d requests, want 1", api.count())
		}
	})

	t.Run("a context already cancelled sends nothing", func(t *testing.T) {
		api := newFakeAPI(t, VariantSelfHosted)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		resp, err := api.client(nil).CreateEmbeddings(ctx, []string{"x"})
		wantFailure(t, resp, err, core.EmbeddingsCancelled)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("errors.Is(err, context.Canceled) = false for %v", err)
		}
		if api.count() != 0 {
			t.Errorf("server got %d requests, want 0", api.count())
		}
	})

	t.Run("a deadline passing while the server answers is cancelled", func(t *testing.T) {
		for _, v := range allVariants() {
			t.Run(string(v), func(t *testing.T) {
				api := newFakeAPI(t, v, replyHang)
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				defer cancel()
				resp, err := api.client(nil).CreateEmbeddings(ctx, []string{"x"})
				wantFailure(t, resp, err, core.EmbeddingsCancelled, "deadline exceeded")
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("errors.Is(err, context.DeadlineExceeded) = false for %v", err)
				}
			})
		}
	})
}

func TestServerErrorsCarryStatusAndMessage(t *testing.T) {
	tests := []struct {
		name      string
		reply     reply
		fragments []string
	}{
		{"500 with a JSON error carries the server's message",
			replyStatus(500, "application/json", `{"error":{"message":"the model is overloaded","type":"server_error"}}`),
			[]string{"http 500 Internal Server Error", "the model is overloaded"}},
		{"502 with an HTML body carries the page title",
			replyStatus(502, "text/html", "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"),
			[]string{"http 502 Bad Gateway: 502 Bad Gateway"}},
		{"400 with a plain-text body carries the text on one line",
			replyStatus(400, "text/plain", "input must not be empty\nsee docs"),
			[]string{"http 400 Bad Request: input must not be empty see docs"}},
		{"404 with an empty body carries the status",
			replyStatus(404, "", ""),
			[]string{"http 404 Not Found"}},
		{"422 with a detail field carries it",
			replyStatus(422, "application/json", `{"detail":"model not found"}`),
			[]string{"http 422 Unprocessable Entity: model not found"}},
		{"a 3xx without a location is an error",
			replyStatus(304, "", ""),
			[]string{"http 304 Not Modified"}},
		{"truncated JSON is a decode error",
			replyBody(`{"data":[{"index":0,"embedding":[0.1,0.2`),
			[]string{"decode response", "unexpected end of JSON input"}},
		{"a body that is not JSON is a decode error",
			replyStatus(200, "text/html", "<html>ok</html>"),
			[]string{"decode response"}},
		{"the wrong number of embeddings is an error",
			replyBody(`{"data":[{"index":0,"embedding":[1]}]}`),
			[]string{"response holds 1 embeddings for 2 inputs"}},
		{"a repeated index is an error",
			replyBody(`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`),
			[]string{"embedding index 0 appears twice"}},
		{"a 200 with an error and no data is an error",
			replyBody(`{"error":{"message":"quota exceeded"}}`),
			[]string{"response has no data: quota exceeded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted, tt.reply)
			h := api.client(nil)
			resp, err := h.CreateEmbeddings(context.Background(), []string{"a", "b"})
			ee := wantFailure(t, resp, err, core.EmbeddingsFailed, tt.fragments...)
			if !strings.HasPrefix(ee.Message, "embedhosted: POST "+api.server.URL+"/v1/embeddings: ") {
				t.Errorf("message %q does not name the operation and address", ee.Message)
			}
			if api.count() != 1 {
				t.Errorf("server got %d requests, want 1", api.count())
			}
		})
	}
}

func TestResponseBodiesAreReadWithALimit(t *testing.T) {
	huge := func(w http.ResponseWriter, _ *http.Request, _ fakeRequest) {
		w.Header().Set("Content-Type", "application/json")
		chunk := bytes.Repeat([]byte(" "), 64<<10)
		for written := int64(0); written <= maxBody(1); written += int64(len(chunk)) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
	api := newFakeAPI(t, VariantSelfHosted, huge)
	resp, err := api.client(nil).CreateEmbeddings(context.Background(), []string{"x"})
	wantFailure(t, resp, err, core.EmbeddingsFailed, "response body exceeds")
}

func TestTransportErrorsAreFailures(t *testing.T) {
	// A listener that accepts and at once closes every connection.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	h, err := New(&Options{OSSModel: testOSSModel, OSSEndpoint: "http://" + ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := h.CreateEmbeddings(context.Background(), []string{"x"})
	ee := wantFailure(t, resp, err, core.EmbeddingsFailed, "embedhosted: POST http://"+ln.Addr().String()+"/v1/embeddings: ")
	if ee.Err == nil {
		t.Error("Err is nil, want the transport error")
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, core.ErrEmbeddingsCancelled) {
		t.Error("a transport error reads as a cancellation")
	}
}

func TestKeysNeverReachMessagesOrLogs(t *testing.T) {
	// A server that echoes every header it got, credentials included.
	echo := func(w http.ResponseWriter, r *http.Request, _ fakeRequest) {
		var b strings.Builder
		for name, values := range r.Header {
			b.WriteString(name + ": " + strings.Join(values, ",") + "; ")
		}
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"message": b.String()}})
	}
	for _, v := range allVariants() {
		t.Run(string(v), func(t *testing.T) {
			api := newFakeAPI(t, v, echo, replyRateLimited(""))
			var logs bytes.Buffer
			h := api.client(func(o *Options) {
				o.LogRequests = true
				o.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
				o.RetryPolicy = []time.Duration{}
			})
			for range 2 {
				resp, err := h.CreateEmbeddings(context.Background(), []string{"x"})
				if err == nil {
					t.Fatal("want a failure")
				}
				for _, text := range []string{err.Error(), resp.Message} {
					if strings.Contains(text, testAPIKey) || strings.Contains(text, testCloudKey) {
						t.Errorf("message leaks a key: %q", text)
					}
				}
			}
			if strings.Contains(logs.String(), testAPIKey) || strings.Contains(logs.String(), testCloudKey) {
				t.Errorf("logs leak a key: %s", logs.String())
			}
		})
	}
}

func TestLogRequests(t *testing.T) {
	tests := []struct {
		name        string
		logRequests bool
		wantRecords int
	}{
		{"LogRequests logs one record per attempt", true, 2},
		{"without LogRequests a Logger stays silent", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, VariantHosted, replyRateLimited(""))
			var logs bytes.Buffer
			h := api.client(func(o *Options) {
				o.LogRequests = tt.logRequests
				o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
				o.RetryPolicy = []time.Duration{time.Millisecond}
			})
			if _, err := h.CreateEmbeddings(context.Background(), []string{"secret input"}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
			if logs.Len() == 0 {
				lines = nil
			}
			if len(lines) != tt.wantRecords {
				t.Fatalf("%d records, want %d:\n%s", len(lines), tt.wantRecords, logs.String())
			}
			for i, line := range lines {
				for _, want := range []string{
					"method=POST", "url=" + api.server.URL + "/v1/embeddings", "inputs=1", "duration=",
					"attempt=" + string(rune('1'+i)),
					"status=" + map[int]string{0: "429", 1: "200"}[i],
				} {
					if !strings.Contains(line, want) {
						t.Errorf("record %q lacks %q", line, want)
					}
				}
				if strings.Contains(line, "secret input") {
					t.Errorf("record %q holds the input text", line)
				}
			}
		})
	}
}

func TestConcurrentCallsShareOneClient(t *testing.T) {
	api := newFakeAPI(t, VariantCloudHosted)
	h := api.client(nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			inputs := []string{strings.Repeat("x", i+1), "shared"}
			resp, err := h.CreateEmbeddings(context.Background(), inputs)
			wantSuccess(t, resp, err, inputs, fakeDimensions)
		})
	}
	wg.Wait()
	if api.count() != 8 {
		t.Errorf("server got %d requests, want 8", api.count())
	}
}
