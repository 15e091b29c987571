package embedhosted_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	embedhosted "github.com/foliovec/folio/adapters/embed-hosted"
	"github.com/foliovec/folio/core"
)

// A self-hosted compatible server, here a stand-in on 127.0.0.1 that
// answers every input with a two-number vector.
func ExampleNew() {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
			Model string   `json:"model"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		var data []item
		for i, text := range req.Input {
			data = append(data, item{i, []float64{float64(len(text)), 1}})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data, "model": req.Model})
	}))
	defer server.Close()

	model, err := embedhosted.New(&embedhosted.Options{
		OSSModel:    "nomic-embed-text",
		OSSEndpoint: server.URL,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := model.CreateEmbeddings(context.Background(), []string{"hello", "vector search"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(model.Variant(), model.MaxTokens())
	fmt.Println(resp.Status, resp.Model, resp.Output)
	// Output:
	// self-hosted 500
	// success nomic-embed-text [[5 1] [13 1]]
}

// Failures are *core.EmbeddingsError values; errors.Is tells them apart.
func ExampleHostedEmbeddings_CreateEmbeddings_rateLimited() {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
	}))
	defer server.Close()

	model, err := embedhosted.New(&embedhosted.Options{
		APIKey:      "sk-example-key",
		Model:       "text-embedding-3-small",
		Endpoint:    server.URL,
		RetryPolicy: []time.Duration{time.Millisecond}, // one retry
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := model.CreateEmbeddings(context.Background(), []string{"hello"})
	fmt.Println(resp.Status, errors.Is(err, core.ErrRateLimited))
	// Output:
	// rate_limited true
}

// A keys file of Vectra's command-line tool, with the azure… names.
func ExampleOptionsFromKeysJSON() {
	opts, err := embedhosted.OptionsFromKeysJSON([]byte(`{
		"azureApiKey": "key-from-the-file",
		"azureEndpoint": "https://my-resource.example.com/",
		"azureDeployment": "embeddings",
		"maxTokens": 8000
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	model, err := embedhosted.New(&opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	resolved := model.Options()
	fmt.Println(model.Variant(), resolved.CloudEndpoint, resolved.CloudAPIVersion, model.MaxTokens())
	// Printing or logging options never shows a key.
	fmt.Println(opts.CloudAPIKey == "key-from-the-file", strings.Contains(fmt.Sprint(opts), "key-from-the-file"))
	// Output:
	// cloud-hosted https://my-resource.example.com 2023-05-15 8000
	// true false
}
