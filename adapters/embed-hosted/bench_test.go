package embedhosted

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// benchBody is a success body of n vectors of dims values, as the hosted
// API writes it.
func benchBody(b *testing.B, n, dims int) []byte {
	b.Helper()
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	items := make([]item, n)
	for i := range items {
		items[i] = item{"embedding", i, fakeVector(fmt.Sprint(i), dims)}
	}
	body, err := json.Marshal(map[string]any{"object": "list", "data": items, "model": "m",
		"usage": map[string]int{"prompt_tokens": n, "total_tokens": n}})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

func BenchmarkDecodeEmbeddings(b *testing.B) {
	for _, size := range []struct{ n, dims int }{{1, 1536}, {16, 1536}, {64, 3072}} {
		body := benchBody(b, size.n, size.dims)
		b.Run(fmt.Sprintf("%dx%d", size.n, size.dims), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeEmbeddings(body, size.n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCreateEmbeddings is one call through a server on 127.0.0.1
// that answers with a prepared body: the client's whole cost per call
// (encode, HTTP, read, decode), with the server's cost kept small.
func BenchmarkCreateEmbeddings(b *testing.B) {
	const n, dims = 16, 1536
	body := benchBody(b, n, dims)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	b.Cleanup(server.Close)
	h, err := New(&Options{APIKey: testAPIKey, Model: testModel, Endpoint: server.URL})
	if err != nil {
		b.Fatal(err)
	}
	inputs := make([]string, n)
	for i := range inputs {
		inputs[i] = fmt.Sprintf("chunk %d of a document that is being indexed", i)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.CreateEmbeddings(context.Background(), inputs); err != nil {
			b.Fatal(err)
		}
	}
}
