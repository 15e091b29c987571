//go:build !(js && wasm)

package embedhosted

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/foliovec/folio/conformance/browsertest"
)

// TestInBrowser runs the js/wasm tests (fetch_js_test.go), where requests
// go through the page's fetch, in headless Chromium against a self-hosted
// fake on 127.0.0.1 that the page reaches cross-origin.
func TestInBrowser(t *testing.T) {
	srv := httptest.NewServer(browserFake())
	t.Cleanup(srv.Close)
	browsertest.Run(t, browsertest.Options{
		Env:  []string{"FOLIO_EMBED_SERVER=" + srv.URL},
		Args: []string{"-run", "^TestFetch", "-v"},
	})
}

// browserFake answers POST /v1/embeddings as the self-hosted API does, by
// the model named: "fail" is a 500 with an error message, "limited" a 429
// (Retry-After: 0) every other request, "slow" waits for the client to go
// away; any other model embeds as the other fakes do. It allows every
// origin and header, as a page needs.
func browserFake() http.Handler {
	var calls atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Headers", "*")
			w.Header().Set("Access-Control-Allow-Methods", "POST")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		var body struct {
			Input []string `json:"input"`
			Model string   `json:"model"`
		}
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&body) != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "bad request"}})
			return
		}
		switch body.Model {
		case "fail":
			writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]any{"message": "no such model"}})
		case "limited":
			if calls.Add(1)%2 == 1 {
				w.Header().Set("Retry-After", "0")
				writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{"message": "slow down"}})
				return
			}
			replyEmbeddings(w, r, fakeRequest{Input: body.Input})
		case "slow":
			<-r.Context().Done()
		default:
			replyEmbeddings(w, r, fakeRequest{Input: body.Input})
		}
	})
}
