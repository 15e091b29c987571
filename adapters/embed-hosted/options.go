package embedhosted

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/foliovec/folio/core"
)

// Defaults applied by [New] to options left at their zero value.
const (
	// DefaultEndpoint is the hosted variant's base address when Endpoint is "".
	DefaultEndpoint = "https://api.openai.com"
	// DefaultCloudAPIVersion is sent as api-version when CloudAPIVersion is "".
	DefaultCloudAPIVersion = "2023-05-15"
	// DefaultMaxTokens is MaxTokens when the option is 0.
	DefaultMaxTokens = 500
	// DefaultUserAgent is sent unless Headers carries a User-Agent.
	DefaultUserAgent = "Folio (github.com/foliovec/folio)"
)

// DefaultRetryPolicy returns the delays used when Options.RetryPolicy is nil:
// 2 s before the first retry, 5 s before the second. Each call returns a new
// slice.
func DefaultRetryPolicy() []time.Duration {
	return []time.Duration{2 * time.Second, 5 * time.Second}
}

// Variant names the API a [HostedEmbeddings] talks to.
type Variant string

// The three variants. [New] picks one from the options that are set.
const (
	// VariantHosted is the hosted API: APIKey, Model, optional Organization
	// and Endpoint.
	VariantHosted Variant = "hosted"
	// VariantCloudHosted is the cloud-hosted API: CloudAPIKey, CloudEndpoint
	// (HTTPS), CloudDeployment, optional CloudAPIVersion.
	VariantCloudHosted Variant = "cloud-hosted"
	// VariantSelfHosted is a compatible self-hosted server: OSSModel and
	// OSSEndpoint, no credential.
	VariantSelfHosted Variant = "self-hosted"
)

// Options configures [New]. Set the fields of exactly one variant; the shared
// fields are optional and their zero values are valid defaults.
//
// Options' String, GoString and LogValue methods print APIKey and
// CloudAPIKey as "[redacted]", so logging or printing Options never leaks a
// key.
type Options struct {
	// Hosted variant.
	APIKey       string // required; sent as "Authorization: Bearer <APIKey>"
	Model        string // required; sent as the body's "model"
	Organization string // optional; sent as the "OpenAI-Organization" header
	Endpoint     string // optional base address; "" means DefaultEndpoint

	// Cloud-hosted variant.
	CloudAPIKey     string // required; sent as the "api-key" header
	CloudEndpoint   string // required; must be an https:// address
	CloudDeployment string // required; names the deployment in the path
	CloudAPIVersion string // optional; "" means DefaultCloudAPIVersion

	// Self-hosted compatible variant.
	OSSModel    string // required; sent as the body's "model"
	OSSEndpoint string // required base address of the server

	// Shared.

	// MaxTokens is what MaxTokens reports: the most tokens a caller should
	// put in one CreateEmbeddings call. 0 means DefaultMaxTokens. The
	// client never splits a request itself.
	MaxTokens int
	// Dimensions, when above 0, is sent as the body's "dimensions".
	Dimensions int
	// RetryPolicy holds the delays before each retry of a request answered
	// with HTTP 429. nil means DefaultRetryPolicy(); an empty, non-nil slice
	// means no retry.
	RetryPolicy []time.Duration
	// HTTPClient sends the requests; nil means a client with Go's default
	// transport and no timeout (the context bounds each call). In js/wasm
	// the requests go through the page's fetch and a set HTTPClient is an
	// error (linking Go's client would add about 1 MB to a page).
	HTTPClient *http.Client
	// Headers are added to every request. Content-Type and User-Agent in
	// Headers replace the defaults; the variant's credential header is
	// always set by the client.
	Headers http.Header
	// LogRequests logs one record per HTTP attempt to Logger (method, URL,
	// attempt, status, duration; never a key, never the inputs).
	LogRequests bool
	// Logger receives the records of LogRequests; nil means silent.
	Logger *slog.Logger
}

// redacted stands in for a secret wherever one would be printed.
const redacted = "[redacted]"

// String prints the options with their keys redacted.
func (o Options) String() string {
	return fmt.Sprintf("%+v", o.withoutKeys())
}

// GoString prints the options with their keys redacted.
func (o Options) GoString() string {
	return fmt.Sprintf("%#v", o.withoutKeys())
}

// LogValue logs the options with their keys redacted.
func (o Options) LogValue() slog.Value {
	attrs := []slog.Attr{}
	add := func(name, value string) {
		if value != "" {
			attrs = append(attrs, slog.String(name, value))
		}
	}
	if o.APIKey != "" {
		add("APIKey", redacted)
	}
	add("Model", o.Model)
	add("Organization", o.Organization)
	add("Endpoint", o.Endpoint)
	if o.CloudAPIKey != "" {
		add("CloudAPIKey", redacted)
	}
	add("CloudEndpoint", o.CloudEndpoint)
	add("CloudDeployment", o.CloudDeployment)
	add("CloudAPIVersion", o.CloudAPIVersion)
	add("OSSModel", o.OSSModel)
	add("OSSEndpoint", o.OSSEndpoint)
	attrs = append(attrs,
		slog.Int("MaxTokens", o.MaxTokens),
		slog.Int("Dimensions", o.Dimensions),
		slog.Any("RetryPolicy", o.RetryPolicy),
		slog.Bool("LogRequests", o.LogRequests))
	return slog.GroupValue(attrs...)
}

// optionsView mirrors Options without methods, so printing it does not
// recurse into String.
type optionsView Options

func (o Options) withoutKeys() optionsView {
	if o.APIKey != "" {
		o.APIKey = redacted
	}
	if o.CloudAPIKey != "" {
		o.CloudAPIKey = redacted
	}
	return optionsView(o)
}

// field is one option of a variant, by its Go name.
type field struct {
	name     string
	value    string
	required bool
}

func (o Options) hostedFields() []field {
	return []field{
		{"APIKey", o.APIKey, true},
		{"Model", o.Model, true},
		{"Organization", o.Organization, false},
		{"Endpoint", o.Endpoint, false},
	}
}

func (o Options) cloudFields() []field {
	return []field{
		{"CloudAPIKey", o.CloudAPIKey, true},
		{"CloudEndpoint", o.CloudEndpoint, true},
		{"CloudDeployment", o.CloudDeployment, true},
		{"CloudAPIVersion", o.CloudAPIVersion, false},
	}
}

func (o Options) selfHostedFields() []field {
	return []field{
		{"OSSModel", o.OSSModel, true},
		{"OSSEndpoint", o.OSSEndpoint, true},
	}
}

// variant reports which variant the options describe. Fields of more than
// one variant, none at all, or a variant with a required field missing are
// an error wrapping core.ErrInvalidArgument that names the fields.
func (o Options) variant() (Variant, error) {
	groups := []struct {
		variant Variant
		fields  []field
	}{
		{VariantHosted, o.hostedFields()},
		{VariantCloudHosted, o.cloudFields()},
		{VariantSelfHosted, o.selfHostedFields()},
	}
	var present []string
	var chosen Variant
	var missing []string
	for _, g := range groups {
		var set, unset []string
		for _, f := range g.fields {
			switch {
			case f.value != "":
				set = append(set, f.name)
			case f.required:
				unset = append(unset, f.name)
			}
		}
		if len(set) > 0 {
			present = append(present, fmt.Sprintf("%s (%s)", g.variant, strings.Join(set, ", ")))
			chosen, missing = g.variant, unset
		}
	}
	switch {
	case len(present) == 0:
		return "", fmt.Errorf("no variant chosen: set APIKey and Model (hosted), "+
			"CloudAPIKey, CloudEndpoint and CloudDeployment (cloud-hosted), "+
			"or OSSModel and OSSEndpoint (self-hosted): %w", core.ErrInvalidArgument)
	case len(present) > 1:
		return "", fmt.Errorf("ambiguous options: fields of %s are set; set one variant's only: %w",
			strings.Join(present, " and "), core.ErrInvalidArgument)
	case len(missing) > 0:
		return "", fmt.Errorf("incomplete %s options: missing %s: %w",
			chosen, strings.Join(missing, ", "), core.ErrInvalidArgument)
	}
	return chosen, nil
}

// resolve validates o and returns a copy with every default filled in,
// sharing no slice or map with o.
func (o Options) resolve() (Options, Variant, error) {
	v, err := o.variant()
	if err != nil {
		return Options{}, "", err
	}
	switch {
	case o.MaxTokens < 0:
		return Options{}, "", fmt.Errorf("negative MaxTokens %d: %w", o.MaxTokens, core.ErrInvalidArgument)
	case o.Dimensions < 0:
		return Options{}, "", fmt.Errorf("negative Dimensions %d: %w", o.Dimensions, core.ErrInvalidArgument)
	}
	for i, d := range o.RetryPolicy {
		if d < 0 {
			return Options{}, "", fmt.Errorf("negative RetryPolicy[%d] %v: %w", i, d, core.ErrInvalidArgument)
		}
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	if o.RetryPolicy == nil {
		o.RetryPolicy = DefaultRetryPolicy()
	} else {
		o.RetryPolicy = append([]time.Duration{}, o.RetryPolicy...)
	}
	o.Headers = o.Headers.Clone()
	switch v {
	case VariantHosted:
		if o.Endpoint == "" {
			o.Endpoint = DefaultEndpoint
		}
		if o.Endpoint, err = baseAddress("Endpoint", o.Endpoint, false); err != nil {
			return Options{}, "", err
		}
	case VariantCloudHosted:
		if o.CloudAPIVersion == "" {
			o.CloudAPIVersion = DefaultCloudAPIVersion
		}
		if o.CloudEndpoint, err = baseAddress("CloudEndpoint", o.CloudEndpoint, true); err != nil {
			return Options{}, "", err
		}
	case VariantSelfHosted:
		if o.OSSEndpoint, err = baseAddress("OSSEndpoint", o.OSSEndpoint, false); err != nil {
			return Options{}, "", err
		}
	}
	return o, v, nil
}

// baseAddress trims spaces and one trailing "/" from an endpoint option and
// checks that it is an absolute http(s) address without query or fragment;
// httpsOnly refuses plain http.
func baseAddress(name, endpoint string, httpsOnly bool) (string, error) {
	endpoint = strings.TrimSpace(endpoint)
	endpoint = strings.TrimSuffix(endpoint, "/")
	u, err := url.Parse(endpoint)
	if err != nil {
		// url.Error quotes the address; keep only the reason.
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err
		}
		return "", fmt.Errorf("%s %q: %v: %w", name, endpoint, err, core.ErrInvalidArgument)
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case httpsOnly && scheme != "https":
		return "", fmt.Errorf("%s %q: the endpoint must be an https url: %w",
			name, u.Redacted(), core.ErrInvalidArgument)
	case scheme != "http" && scheme != "https":
		return "", fmt.Errorf("%s %q: the endpoint must be an http or https url: %w",
			name, u.Redacted(), core.ErrInvalidArgument)
	case u.Host == "":
		return "", fmt.Errorf("%s %q: the endpoint has no host: %w", name, u.Redacted(), core.ErrInvalidArgument)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", fmt.Errorf("%s %q: the endpoint must not have a query or fragment: %w",
			name, u.Redacted(), core.ErrInvalidArgument)
	}
	return endpoint, nil
}
