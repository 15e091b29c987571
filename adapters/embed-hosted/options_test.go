package embedhosted

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/foliovec/folio/core"
)

func TestNewPicksTheVariantFromTheOptionsSet(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want Variant
	}{
		{"APIKey and Model choose hosted",
			Options{APIKey: testAPIKey, Model: testModel}, VariantHosted},
		{"Organization and Endpoint belong to hosted",
			Options{APIKey: testAPIKey, Model: testModel, Organization: "org", Endpoint: "http://127.0.0.1:1"}, VariantHosted},
		{"CloudAPIKey, CloudEndpoint and CloudDeployment choose cloud-hosted",
			Options{CloudAPIKey: testCloudKey, CloudEndpoint: "https://example.com", CloudDeployment: "d"}, VariantCloudHosted},
		{"CloudAPIVersion belongs to cloud-hosted",
			Options{CloudAPIKey: testCloudKey, CloudEndpoint: "https://example.com", CloudDeployment: "d", CloudAPIVersion: "2024-02-01"}, VariantCloudHosted},
		{"OSSModel and OSSEndpoint choose self-hosted",
			Options{OSSModel: testOSSModel, OSSEndpoint: "http://localhost:11434"}, VariantSelfHosted},
		{"shared options do not affect the choice",
			Options{OSSModel: testOSSModel, OSSEndpoint: "http://localhost:11434", MaxTokens: 9, Dimensions: 3, LogRequests: true,
				Headers: http.Header{"Authorization": {"Bearer local"}}}, VariantSelfHosted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := New(&tt.opts)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if h.Variant() != tt.want {
				t.Errorf("Variant() = %q, want %q", h.Variant(), tt.want)
			}
		})
	}
}

func TestNewRejectsAmbiguousIncompleteAndInvalidOptions(t *testing.T) {
	cloud := func(endpoint string) Options {
		return Options{CloudAPIKey: testCloudKey, CloudEndpoint: endpoint, CloudDeployment: "d"}
	}
	hosted := Options{APIKey: testAPIKey, Model: testModel}
	tests := []struct {
		name      string
		opts      Options
		fragments []string
	}{
		{"no variant's fields is an error naming what to set",
			Options{MaxTokens: 10}, []string{"no variant chosen", "APIKey and Model", "OSSModel and OSSEndpoint"}},
		{"hosted and self-hosted fields together are ambiguous",
			Options{APIKey: testAPIKey, Model: testModel, OSSModel: "m", OSSEndpoint: "http://h"},
			[]string{"ambiguous", "hosted (APIKey, Model)", "self-hosted (OSSModel, OSSEndpoint)"}},
		{"a hosted Endpoint with self-hosted fields is ambiguous",
			Options{Endpoint: "http://h", OSSModel: "m", OSSEndpoint: "http://h"},
			[]string{"ambiguous", "hosted (Endpoint)"}},
		{"cloud-hosted and hosted keys together are ambiguous",
			Options{APIKey: testAPIKey, Model: testModel, CloudAPIKey: testCloudKey},
			[]string{"ambiguous", "cloud-hosted (CloudAPIKey)"}},
		{"hosted without Model names the missing field",
			Options{APIKey: testAPIKey}, []string{"incomplete hosted options: missing Model"}},
		{"hosted without APIKey names the missing field",
			Options{Model: testModel, Organization: "o"}, []string{"incomplete hosted options: missing APIKey"}},
		{"cloud-hosted with the key only names every missing field",
			Options{CloudAPIKey: testCloudKey}, []string{"incomplete cloud-hosted options: missing CloudEndpoint, CloudDeployment"}},
		{"self-hosted without an endpoint names it",
			Options{OSSModel: "m"}, []string{"incomplete self-hosted options: missing OSSEndpoint"}},
		{"an http cloud endpoint is rejected",
			cloud("http://example.com"), []string{`CloudEndpoint "http://example.com"`, "must be an https url"}},
		{"a cloud endpoint without a scheme is rejected",
			cloud("example.com"), []string{"must be an https url"}},
		{"an ftp endpoint is rejected",
			Options{OSSModel: "m", OSSEndpoint: "ftp://h"}, []string{"OSSEndpoint", "http or https"}},
		{"an endpoint without a host is rejected",
			Options{OSSModel: "m", OSSEndpoint: "http://"}, []string{"has no host"}},
		{"an endpoint with a query is rejected",
			Options{APIKey: testAPIKey, Model: testModel, Endpoint: "http://h/?x=1"}, []string{"query or fragment"}},
		{"an unparsable endpoint is rejected",
			Options{OSSModel: "m", OSSEndpoint: "http://h:port"}, []string{"OSSEndpoint"}},
		{"a negative MaxTokens is rejected",
			withShared(hosted, func(o *Options) { o.MaxTokens = -1 }), []string{"negative MaxTokens -1"}},
		{"negative Dimensions are rejected",
			withShared(hosted, func(o *Options) { o.Dimensions = -2 }), []string{"negative Dimensions -2"}},
		{"a negative retry delay is rejected",
			withShared(hosted, func(o *Options) { o.RetryPolicy = []time.Duration{1, -1} }), []string{"negative RetryPolicy[1]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := New(&tt.opts)
			if err == nil {
				t.Fatalf("New returned %v, want an error", h)
			}
			if !errors.Is(err, core.ErrInvalidArgument) {
				t.Errorf("errors.Is(%v, core.ErrInvalidArgument) = false", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "embedhosted: new: ") {
				t.Errorf("message %q does not name the operation", msg)
			}
			for _, f := range tt.fragments {
				if !strings.Contains(msg, f) {
					t.Errorf("message %q lacks %q", msg, f)
				}
			}
			if strings.Contains(msg, testAPIKey) || strings.Contains(msg, testCloudKey) {
				t.Errorf("message leaks a key: %q", msg)
			}
		})
	}
}

func withShared(o Options, edit func(*Options)) Options {
	edit(&o)
	return o
}

func TestNewFillsDefaults(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		check func(t *testing.T, h *HostedEmbeddings)
	}{
		{"MaxTokens defaults to 500", Options{APIKey: testAPIKey, Model: testModel},
			func(t *testing.T, h *HostedEmbeddings) { wantEqual(t, h.MaxTokens(), 500) }},
		{"MaxTokens is kept when set", Options{OSSModel: "m", OSSEndpoint: "http://h", MaxTokens: 1234},
			func(t *testing.T, h *HostedEmbeddings) { wantEqual(t, h.MaxTokens(), 1234) }},
		{"a nil RetryPolicy is 2 s then 5 s", Options{APIKey: testAPIKey, Model: testModel},
			func(t *testing.T, h *HostedEmbeddings) {
				wantEqual(t, h.Options().RetryPolicy, []time.Duration{2 * time.Second, 5 * time.Second})
			}},
		{"an empty RetryPolicy stays empty", Options{APIKey: testAPIKey, Model: testModel, RetryPolicy: []time.Duration{}},
			func(t *testing.T, h *HostedEmbeddings) { wantEqual(t, len(h.Options().RetryPolicy), 0) }},
		{"the hosted endpoint defaults to the hosted API", Options{APIKey: testAPIKey, Model: testModel},
			func(t *testing.T, h *HostedEmbeddings) { wantEqual(t, h.url, "https://api.openai.com/v1/embeddings") }},
		{"CloudAPIVersion defaults to 2023-05-15",
			Options{CloudAPIKey: testCloudKey, CloudEndpoint: "https://example.com", CloudDeployment: "d"},
			func(t *testing.T, h *HostedEmbeddings) { wantEqual(t, h.Options().CloudAPIVersion, "2023-05-15") }},
		{"the cloud endpoint loses spaces and one trailing slash",
			Options{CloudAPIKey: testCloudKey, CloudEndpoint: " HTTPS://example.com/ ", CloudDeployment: "d"},
			func(t *testing.T, h *HostedEmbeddings) {
				wantEqual(t, h.Options().CloudEndpoint, "HTTPS://example.com")
			}},
		{"the self-hosted endpoint loses one trailing slash",
			Options{OSSModel: "m", OSSEndpoint: "http://h:8080/base/"},
			func(t *testing.T, h *HostedEmbeddings) { wantEqual(t, h.url, "http://h:8080/base/v1/embeddings") }},
		{"the deployment and api version are escaped in the address",
			Options{CloudAPIKey: testCloudKey, CloudEndpoint: "https://example.com", CloudDeployment: "my dep", CloudAPIVersion: "a&b"},
			func(t *testing.T, h *HostedEmbeddings) {
				wantEqual(t, h.url, "https://example.com/openai/deployments/my%20dep/embeddings?api-version=a%26b")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := New(&tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, h)
		})
	}
}

func wantEqual[T any](t *testing.T, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestNewCopiesTheCallersSlicesAndHeaders(t *testing.T) {
	policy := []time.Duration{time.Millisecond}
	headers := http.Header{"X-Trace": {"a"}}
	h, err := New(&Options{OSSModel: "m", OSSEndpoint: "http://h", RetryPolicy: policy, Headers: headers})
	if err != nil {
		t.Fatal(err)
	}
	policy[0] = time.Hour
	headers.Set("X-Trace", "b")
	got := h.Options()
	wantEqual(t, got.RetryPolicy, []time.Duration{time.Millisecond})
	wantEqual(t, got.Headers.Get("X-Trace"), "a")
	wantEqual(t, h.header.Get("X-Trace"), "a")

	got.RetryPolicy[0] = time.Hour
	got.Headers.Set("X-Trace", "c")
	wantEqual(t, h.Options().RetryPolicy, []time.Duration{time.Millisecond})
	wantEqual(t, h.Options().Headers.Get("X-Trace"), "a")
}

func TestPrintingOptionsRedactsKeys(t *testing.T) {
	o := Options{APIKey: testAPIKey, Model: testModel, CloudAPIKey: testCloudKey}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("opts", "options", o)
	for _, printed := range []string{
		fmt.Sprint(o), fmt.Sprintf("%v", o), fmt.Sprintf("%+v", o), fmt.Sprintf("%#v", o), o.String(),
		fmt.Sprint(&o), logs.String(),
	} {
		if strings.Contains(printed, testAPIKey) || strings.Contains(printed, testCloudKey) {
			t.Errorf("printed options leak a key: %s", printed)
		}
		if !strings.Contains(printed, redacted) || !strings.Contains(printed, testModel) {
			t.Errorf("printed options %s lack the redaction mark or the model", printed)
		}
	}
}
