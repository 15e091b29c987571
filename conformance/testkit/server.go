package testkit

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliovec/folio/core"
)

// EmbeddingsServer is an OpenAI-compatible embeddings endpoint on
// 127.0.0.1 (POST /v1/embeddings, as the hosted adapter and Vectra call
// it), started for a test and closed when the test ends. Its URL is the
// endpoint to give a client.
type EmbeddingsServer struct {
	*httptest.Server
	// Calls counts the requests answered with vectors.
	Calls atomic.Int64
}

// EmbeddingsServerOptions configures an EmbeddingsServer.
type EmbeddingsServerOptions struct {
	// Model computes the vectors; nil means Words{Dims: 16}.
	Model core.EmbeddingsModel
	// APIKey, when set, must come as "Authorization: Bearer <APIKey>";
	// other requests are answered 401.
	APIKey string
	// Latency is how long each answer is held back.
	Latency time.Duration
}

// NewEmbeddingsServer starts an EmbeddingsServer.
func NewEmbeddingsServer(t testing.TB, opts EmbeddingsServerOptions) *EmbeddingsServer {
	t.Helper()
	model := opts.Model
	if model == nil {
		model = Words{Dims: 16}
	}
	s := &EmbeddingsServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		if opts.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+opts.APIKey {
			http.Error(w, "wrong API key", http.StatusUnauthorized)
			return
		}
		var req struct {
			Input []string `json:"input"`
			Model string   `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp, err := model.CreateEmbeddings(r.Context(), req.Input)
		if err == nil && resp.Status != core.EmbeddingsSuccess {
			err = errors.New(resp.Message)
		}
		if err != nil {
			http.Error(w, "embeddings failed: "+err.Error(), http.StatusInternalServerError)
			return
		}
		s.Calls.Add(1)
		time.Sleep(opts.Latency)
		type datum struct {
			Object    string    `json:"object"`
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		}
		data := make([]datum, len(resp.Output))
		for i, v := range resp.Output {
			data[i] = datum{Object: "embedding", Embedding: v, Index: i}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
			"usage": map[string]int{"prompt_tokens": 0, "total_tokens": 0}})
	}))
	t.Cleanup(s.Close)
	return s
}
