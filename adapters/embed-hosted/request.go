package embedhosted

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
)

// requestBody is the JSON body of every variant: the inputs, then the
// optional dimensions and model, in Vectra's key order.
type requestBody struct {
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
	Model      string   `json:"model,omitempty"`
}

// encodeBody writes the request body for inputs. Characters such as < and &
// are written as themselves, as JSON.stringify does.
func encodeBody(inputs []string, dimensions int, model string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(requestBody{Input: inputs, Dimensions: dimensions, Model: model}); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// requestURL is the address a variant posts to, from resolved
// options whose endpoints carry no trailing "/":
//
//	hosted        <Endpoint>/v1/embeddings
//	cloud-hosted  <CloudEndpoint>/openai/deployments/<CloudDeployment>/embeddings?api-version=<CloudAPIVersion>
//	self-hosted   <OSSEndpoint>/v1/embeddings
//
// The deployment and the version are escaped; ordinary names are unchanged.
func requestURL(o Options, v Variant) string {
	switch v {
	case VariantCloudHosted:
		return o.CloudEndpoint + "/openai/deployments/" + url.PathEscape(o.CloudDeployment) +
			"/embeddings?api-version=" + url.QueryEscape(o.CloudAPIVersion)
	case VariantSelfHosted:
		return o.OSSEndpoint + "/v1/embeddings"
	default:
		return o.Endpoint + "/v1/embeddings"
	}
}

// bodyModel is the body's "model": the option of the hosted and self-hosted
// variants; the cloud-hosted variant names its model in the path.
func bodyModel(o Options, v Variant) string {
	switch v {
	case VariantHosted:
		return o.Model
	case VariantSelfHosted:
		return o.OSSModel
	}
	return ""
}

// requestHeader is the header of every request: the caller's Headers, then
// Content-Type and User-Agent unless the caller set them, then the
// variant's credential, which always wins.
func requestHeader(o Options, v Variant) http.Header {
	h := o.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	if len(h.Values("Content-Type")) == 0 {
		h.Set("Content-Type", "application/json")
	}
	if len(h.Values("User-Agent")) == 0 {
		h.Set("User-Agent", DefaultUserAgent)
	}
	switch v {
	case VariantHosted:
		h.Set("Authorization", "Bearer "+o.APIKey)
		if o.Organization != "" {
			h.Set("OpenAI-Organization", o.Organization)
		}
	case VariantCloudHosted:
		h.Set("api-key", o.CloudAPIKey)
	}
	return h
}
