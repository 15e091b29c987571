package embedhosted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/foliovec/folio/core"
)

// Defaults Vectra's CLI applies to a hosted keys file without "model".
const (
	keysFileDefaultModel     = "text-embedding-ada-002"
	keysFileDefaultMaxTokens = 8000
)

// OptionsFromKeysJSON decodes a keys file of Vectra's command-line tool (its
// --keys file of Vectra's CLI) into Options. The file is one JSON object in one of
// three shapes:
//
//	{"apiKey": "…", "model": "text-embedding-3-small", "organization"?, "endpoint"?}
//	{"azureApiKey": "…", "azureEndpoint": "https://…", "azureDeployment": "…", "azureApiVersion"?}
//	{"ossModel": "…", "ossEndpoint": "http://…"}
//
// each with the optional shared keys "maxTokens", "dimensions",
// "retryPolicy" (delays in milliseconds), "logRequests" and
// "requestConfig" (of which only "headers", an object of strings, is
// used). The cloud-hosted keys are accepted under the cloud… names too
// ("cloudApiKey", "cloudEndpoint", "cloudDeployment", "cloudApiVersion");
// a file giving both names of one option must give them the same value.
// Keys are case-sensitive; unknown keys and null values are ignored, as
// Vectra ignores them.
//
// As Vectra's CLI does, a file with "apiKey" and no "model" gets the model
// "text-embedding-ada-002" and MaxTokens 8000 (replacing any "maxTokens").
//
// The result is not validated beyond the types of its values: pass it to
// [New]. LogRequests is decoded, but nothing is logged until the caller
// sets Options.Logger. A malformed file is an error wrapping
// [core.ErrInvalidArgument]; the message never quotes a key's value.
func OptionsFromKeysJSON(data []byte) (Options, error) {
	o, err := decodeKeysFile(data)
	if err != nil {
		return Options{}, fmt.Errorf("embedhosted: keys file: %w", err)
	}
	if o.APIKey != "" && o.Model == "" {
		o.Model = keysFileDefaultModel
		o.MaxTokens = keysFileDefaultMaxTokens
	}
	return o, nil
}

// OptionsFromJSON decodes the options object of Vectra's OpenAIEmbeddings
// class: the keys OptionsFromKeysJSON reads, without the defaults Vectra's
// CLI adds to a keys file. An OpenAI object without "model" sends none,
// and MaxTokens is "maxTokens" or, without it, DefaultMaxTokens (500), as
// the class has them.
func OptionsFromJSON(data []byte) (Options, error) {
	o, err := decodeKeysFile(data)
	if err != nil {
		return Options{}, fmt.Errorf("embedhosted: options: %w", err)
	}
	return o, nil
}

func decodeKeysFile(data []byte) (Options, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return Options{}, fmt.Errorf("not a JSON object: %w", core.ErrInvalidArgument)
	}
	k := keysFile{fields: fields}
	o := Options{
		APIKey:       k.str("apiKey"),
		Model:        k.str("model"),
		Organization: k.str("organization"),
		Endpoint:     k.str("endpoint"),

		CloudAPIKey:     k.either("cloudApiKey", "azureApiKey"),
		CloudEndpoint:   k.either("cloudEndpoint", "azureEndpoint"),
		CloudDeployment: k.either("cloudDeployment", "azureDeployment"),
		CloudAPIVersion: k.either("cloudApiVersion", "azureApiVersion"),

		OSSModel:    k.str("ossModel"),
		OSSEndpoint: k.str("ossEndpoint"),

		MaxTokens:   k.count("maxTokens"),
		Dimensions:  k.count("dimensions"),
		RetryPolicy: k.retryPolicy("retryPolicy"),
		LogRequests: k.boolean("logRequests"),
		Headers:     k.headers("requestConfig"),
	}
	if k.err != nil {
		return Options{}, k.err
	}
	return o, nil
}

// keysFile reads typed values from a decoded keys file, keeping the first
// error.
type keysFile struct {
	fields map[string]json.RawMessage
	err    error
}

// raw returns the value of key, nil when absent or null.
func (k *keysFile) raw(key string) json.RawMessage {
	v := bytes.TrimSpace(k.fields[key])
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	return v
}

func (k *keysFile) fail(key, want string) {
	if k.err == nil {
		k.err = fmt.Errorf("%q must be %s: %w", key, want, core.ErrInvalidArgument)
	}
}

func (k *keysFile) str(key string) string {
	v := k.raw(key)
	if v == nil {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		k.fail(key, "a string")
	}
	return s
}

// either reads an option that has two names; both present must agree.
func (k *keysFile) either(name, alias string) string {
	a, b := k.str(name), k.str(alias)
	if a != "" && b != "" && a != b && k.err == nil {
		k.err = fmt.Errorf("%q and %q are both set and differ: %w", name, alias, core.ErrInvalidArgument)
	}
	if a != "" {
		return a
	}
	return b
}

// number reads a finite JSON number.
func (k *keysFile) number(key string, v json.RawMessage) (float64, bool) {
	var f float64
	if json.Unmarshal(v, &f) != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		k.fail(key, "a number")
		return 0, false
	}
	return f, true
}

// count reads a non-negative integer that fits an int32, 0 when absent.
func (k *keysFile) count(key string) int {
	v := k.raw(key)
	if v == nil {
		return 0
	}
	f, ok := k.number(key, v)
	if !ok {
		return 0
	}
	if f < 0 || f > math.MaxInt32 || f != math.Trunc(f) {
		k.fail(key, "a whole number from 0 to 2147483647")
		return 0
	}
	return int(f)
}

// maxRetryDelayMillis keeps a retry delay within time.Duration.
const maxRetryDelayMillis = float64(math.MaxInt64 / int64(time.Millisecond))

// retryPolicy reads an array of non-negative delays in milliseconds; nil
// when absent, empty (no retry) when the array is.
func (k *keysFile) retryPolicy(key string) []time.Duration {
	v := k.raw(key)
	if v == nil {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		k.fail(key, "an array of delays in milliseconds")
		return nil
	}
	policy := make([]time.Duration, 0, len(items))
	for _, item := range items {
		ms, ok := k.number(key, item)
		if !ok {
			return nil
		}
		if ms < 0 || ms > maxRetryDelayMillis {
			k.fail(key, "an array of non-negative delays in milliseconds")
			return nil
		}
		policy = append(policy, time.Duration(ms*float64(time.Millisecond)))
	}
	return policy
}

func (k *keysFile) boolean(key string) bool {
	v := k.raw(key)
	if v == nil {
		return false
	}
	var b bool
	if json.Unmarshal(v, &b) != nil {
		k.fail(key, "true or false")
	}
	return b
}

// headers reads requestConfig.headers, an object of strings; nil when
// absent. The other fields of requestConfig have no Go counterpart and are
// ignored.
func (k *keysFile) headers(key string) http.Header {
	v := k.raw(key)
	if v == nil {
		return nil
	}
	var config map[string]json.RawMessage
	if json.Unmarshal(v, &config) != nil {
		k.fail(key, "an object")
		return nil
	}
	raw := bytes.TrimSpace(config["headers"])
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var values map[string]string
	if json.Unmarshal(raw, &values) != nil {
		k.fail(key+".headers", "an object of strings")
		return nil
	}
	h := make(http.Header, len(values))
	for name, value := range values {
		if !validHeaderName(name) {
			k.fail(key+".headers", "an object whose keys are header names")
			return nil
		}
		h.Set(name, value)
	}
	return h
}

// validHeaderName reports whether name is an HTTP field name (RFC 9110
// token).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case bytes.IndexByte([]byte("!#$%&'*+-.^_`|~"), c) >= 0:
		default:
			return false
		}
	}
	return true
}
