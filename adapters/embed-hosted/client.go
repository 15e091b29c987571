//go:build !(js && wasm)

package embedhosted

import "net/http"

// checkClient accepts every Options.HTTPClient: outside the browser the
// requests go through it.
func checkClient(Options) error { return nil }

// do sends req through the client.
func (h *HostedEmbeddings) do(req *http.Request) (*http.Response, error) { return h.client.Do(req) }
