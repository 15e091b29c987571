package embedhosted

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/foliovec/folio/core"
)

func TestOptionsFromKeysJSONReadsVectraKeysFiles(t *testing.T) {
	tests := []struct {
		name string
		file string
		want Options
	}{
		{"a hosted file as Vectra's CLI documents it",
			`{"apiKey": "sk-file-key", "model": "text-embedding-3-small", "maxTokens": 8000}`,
			Options{APIKey: "sk-file-key", Model: "text-embedding-3-small", MaxTokens: 8000}},
		{"a hosted file without model gets ada-002 and 8000 tokens, as the CLI does",
			`{"apiKey": "sk-file-key", "maxTokens": 100}`,
			Options{APIKey: "sk-file-key", Model: "text-embedding-ada-002", MaxTokens: 8000}},
		{"a hosted file with every optional key",
			`{"apiKey": "sk-file-key", "model": "m", "organization": "org", "endpoint": "https://proxy",
			  "dimensions": 256, "retryPolicy": [100, 250.5], "logRequests": true,
			  "requestConfig": {"headers": {"x-trace": "abc"}, "keepalive": true}}`,
			Options{APIKey: "sk-file-key", Model: "m", Organization: "org", Endpoint: "https://proxy",
				Dimensions: 256, RetryPolicy: []time.Duration{100 * time.Millisecond, 250500 * time.Microsecond},
				LogRequests: true, Headers: http.Header{"X-Trace": {"abc"}}}},
		{"a cloud-hosted file under the azure… names",
			`{"azureApiKey": "cloud-file-key", "azureEndpoint": "https://x.example.com", "azureDeployment": "dep", "azureApiVersion": "2024-02-01"}`,
			Options{CloudAPIKey: "cloud-file-key", CloudEndpoint: "https://x.example.com", CloudDeployment: "dep", CloudAPIVersion: "2024-02-01"}},
		{"a cloud-hosted file under the cloud… names",
			`{"cloudApiKey": "cloud-file-key", "cloudEndpoint": "https://x.example.com", "cloudDeployment": "dep", "maxTokens": 2000}`,
			Options{CloudAPIKey: "cloud-file-key", CloudEndpoint: "https://x.example.com", CloudDeployment: "dep", MaxTokens: 2000}},
		{"both names of one option may be given when they agree",
			`{"cloudApiKey": "k1234567", "azureApiKey": "k1234567", "azureEndpoint": "https://x", "cloudDeployment": "d"}`,
			Options{CloudAPIKey: "k1234567", CloudEndpoint: "https://x", CloudDeployment: "d"}},
		{"a self-hosted file",
			`{"ossModel": "nomic-embed-text", "ossEndpoint": "http://localhost:11434"}`,
			Options{OSSModel: "nomic-embed-text", OSSEndpoint: "http://localhost:11434"}},
		{"an empty retryPolicy means no retry",
			`{"ossModel": "m", "ossEndpoint": "http://h", "retryPolicy": []}`,
			Options{OSSModel: "m", OSSEndpoint: "http://h", RetryPolicy: []time.Duration{}}},
		{"null values and unknown keys are ignored",
			`{"ossModel": "m", "ossEndpoint": "http://h", "maxTokens": null, "apiKey": null, "comment": "mine", "requestConfig": {"headers": null}}`,
			Options{OSSModel: "m", OSSEndpoint: "http://h"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := OptionsFromKeysJSON([]byte(tt.file))
			if err != nil {
				t.Fatalf("OptionsFromKeysJSON: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", optionsView(got), optionsView(tt.want))
			}
			if _, err := New(&got); err != nil {
				t.Errorf("New(decoded file): %v", err)
			}
		})
	}
}

func TestOptionsFromKeysJSONRejectsMalformedFiles(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		fragment string
	}{
		{"a file that is not JSON", `apiKey=sk-secret-value`, "not a JSON object"},
		{"a JSON array", `[{"apiKey": "sk-secret-value"}]`, "not a JSON object"},
		{"JSON null", `null`, "not a JSON object"},
		{"a key of the wrong type", `{"apiKey": 12345678, "model": "m"}`, `"apiKey" must be a string`},
		{"a fractional maxTokens", `{"ossModel": "m", "ossEndpoint": "http://h", "maxTokens": 1.5}`, `"maxTokens" must be a whole number`},
		{"a negative dimensions", `{"ossModel": "m", "ossEndpoint": "http://h", "dimensions": -1}`, `"dimensions" must be a whole number`},
		{"a string maxTokens", `{"ossModel": "m", "ossEndpoint": "http://h", "maxTokens": "500"}`, `"maxTokens" must be a number`},
		{"a retryPolicy that is not an array", `{"ossModel": "m", "ossEndpoint": "http://h", "retryPolicy": 2000}`, `"retryPolicy" must be an array`},
		{"a negative retry delay", `{"ossModel": "m", "ossEndpoint": "http://h", "retryPolicy": [10, -1]}`, "non-negative"},
		{"a retry delay beyond time.Duration", `{"ossModel": "m", "ossEndpoint": "http://h", "retryPolicy": [1e300]}`, "non-negative"},
		{"a logRequests that is not a boolean", `{"ossModel": "m", "ossEndpoint": "http://h", "logRequests": "yes"}`, `"logRequests" must be true or false`},
		{"a requestConfig that is not an object", `{"ossModel": "m", "ossEndpoint": "http://h", "requestConfig": []}`, `"requestConfig" must be an object`},
		{"headers that are not strings", `{"ossModel": "m", "ossEndpoint": "http://h", "requestConfig": {"headers": {"x": 1}}}`, `"requestConfig.headers" must be an object of strings`},
		{"a header name that is not a token", `{"ossModel": "m", "ossEndpoint": "http://h", "requestConfig": {"headers": {"bad name": "v"}}}`, "header names"},
		{"azure… and cloud… names that disagree",
			`{"azureApiKey": "sk-secret-value", "cloudApiKey": "sk-other-secret", "azureEndpoint": "https://x", "azureDeployment": "d"}`,
			`"cloudApiKey" and "azureApiKey" are both set and differ`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := OptionsFromKeysJSON([]byte(tt.file))
			if err == nil {
				t.Fatalf("got %v, want an error", got)
			}
			if !errors.Is(err, core.ErrInvalidArgument) {
				t.Errorf("errors.Is(%v, core.ErrInvalidArgument) = false", err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "embedhosted: keys file: ") || !strings.Contains(msg, tt.fragment) {
				t.Errorf("message %q, want the operation and %q", msg, tt.fragment)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("message quotes a key: %q", err.Error())
			}
		})
	}
}

func TestKeysFileOptionsReachTheServer(t *testing.T) {
	// A file's options drive real requests: the fake servers check the
	// wire contract of the variant the file names.
	for _, v := range allVariants() {
		t.Run(string(v), func(t *testing.T) {
			api := newFakeAPI(t, v)
			api.wantHeaders = http.Header{"X-Trace": {"abc"}}
			shared := `"dimensions": 4, "retryPolicy": [1], "requestConfig": {"headers": {"X-Trace": "abc"}}`
			file := map[Variant]string{
				VariantHosted: `{"apiKey": "` + testAPIKey + `", "model": "` + testModel + `", "endpoint": "` +
					api.server.URL + `/", ` + shared + `}`,
				VariantCloudHosted: `{"azureApiKey": "` + testCloudKey + `", "azureEndpoint": "` + api.server.URL +
					`/", "azureDeployment": "` + testDeployment + `", ` + shared + `}`,
				VariantSelfHosted: `{"ossModel": "` + testOSSModel + `", "ossEndpoint": "` + api.server.URL + `", ` + shared + `}`,
			}[v]
			o, err := OptionsFromKeysJSON([]byte(file))
			if err != nil {
				t.Fatal(err)
			}
			o.HTTPClient = api.server.Client()
			api.wantDimensions = 4
			h, err := New(&o)
			if err != nil {
				t.Fatal(err)
			}
			if h.Variant() != v {
				t.Errorf("variant %q, want %q", h.Variant(), v)
			}
			resp, err := h.CreateEmbeddings(context.Background(), []string{"from a keys file"})
			wantSuccess(t, resp, err, []string{"from a keys file"}, 4)
		})
	}
}

func FuzzOptionsFromKeysJSON(f *testing.F) {
	for _, seed := range []string{
		`{"apiKey": "sk-x", "model": "m", "maxTokens": 8000}`,
		`{"apiKey": "sk-x"}`,
		`{"azureApiKey": "k", "azureEndpoint": "https://x/", "azureDeployment": "d", "azureApiVersion": "v"}`,
		`{"cloudApiKey": "k", "cloudEndpoint": "http://x", "cloudDeployment": "d"}`,
		`{"ossModel": "m", "ossEndpoint": "http://h", "retryPolicy": [1, 2.5], "dimensions": 3}`,
		`{"ossModel": "m", "ossEndpoint": "http://h", "requestConfig": {"headers": {"a": "b"}}}`,
		`{"apiKey": 1}`, `[]`, `null`, `{`, `{"maxTokens": 1e400}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := OptionsFromKeysJSON(data)
		if err != nil {
			if !errors.Is(err, core.ErrInvalidArgument) {
				t.Fatalf("error %v does not wrap core.ErrInvalidArgument", err)
			}
			return
		}
		if o.MaxTokens < 0 || o.Dimensions < 0 {
			t.Fatalf("negative numbers decoded: %+v", o)
		}
		for _, d := range o.RetryPolicy {
			if d < 0 {
				t.Fatalf("negative delay decoded: %v", o.RetryPolicy)
			}
		}
		h, err := New(&o)
		if err != nil {
			if !errors.Is(err, core.ErrInvalidArgument) {
				t.Fatalf("New error %v does not wrap core.ErrInvalidArgument", err)
			}
			return
		}
		if h.MaxTokens() <= 0 {
			t.Fatalf("MaxTokens %d", h.MaxTokens())
		}
	})
}
