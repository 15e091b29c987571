//go:build !(js && wasm)

package main

import (
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
)

// folioOwn are the values where Folio deliberately differs from Vectra,
// with what Folio gives: its splitter merges a piece under 16 tokens (the
// closing "A third.") into its neighbour, and its o200k_base tokenizer
// encodes special-token text as ordinary text where Vectra's throws, and
// an OpenAI options object without its model is refused at once.
var folioOwn = map[string]string{
	"chunks":       `[["Hello world! Folio and Vectra split text the same way.",0,53,15,0,4],["A second paragraph, with more words in it than the first one has. A third.",56,130,18,4,0]]`,
	"specialToken": `"no error"`,
	// An OpenAI options object without a model is refused at construction;
	// Vectra's sends requests without one, which the API refuses.
	"openaiNoModel": `"threw"`,
}

// TestSurfaceAsVectra runs testdata/surface.js against Vectra's browser
// build and Folio's module and compares every value, field by field; the
// values in folioOwn are checked against Folio's own answer instead.
func TestSurfaceAsVectra(t *testing.T) {
	if os.Getenv("FOLIO_VECTRA_BROWSER_BUNDLE") == "" {
		t.Skip("FOLIO_VECTRA_BROWSER_BUNDLE is not set (make test builds Vectra's browser bundle and sets it)")
	}
	embeddings := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string
			Input []string
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "fail" {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"message":"bad model"}}`))
			return
		}
		type datum struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		resp := struct {
			Object string  `json:"object"`
			Data   []datum `json:"data"`
			Model  string  `json:"model"`
		}{Object: "list", Model: req.Model}
		for i, in := range req.Input {
			resp.Data = append(resp.Data, datum{"embedding", i, []float64{float64(len(in)), float64(len(strings.Fields(in))), 0.5}})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	})
	article := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<html><head><title>T</title><script>x()</script></head><body><h1>Tides</h1><p>The <b>Moon</b> raises <a href="/b">two bulges</a>.</p><ul><li>one</li><li>two</li></ul></body></html>`))
	})
	s := newSite(t, map[string]http.Handler{"/v1/embeddings": embeddings, "/article.html": article})
	ctx := newBrowser(t)
	var vectra, folio map[string]json.RawMessage
	s.runPage(t, ctx, map[string]string{"test": "surface", "lib": "vectra"}, &vectra)
	s.runPage(t, ctx, map[string]string{"test": "surface", "lib": "folio"}, &folio)
	if len(vectra) < 20 {
		t.Fatalf("Vectra's run gave only %d values", len(vectra))
	}
	for key, want := range vectra {
		got, ok := folio[key]
		if !ok {
			t.Errorf("%s: missing from Folio's run", key)
			continue
		}
		if own, ok := folioOwn[key]; ok {
			want = json.RawMessage(own)
		}
		var w, g any
		json.Unmarshal(want, &w)
		json.Unmarshal(got, &g)
		if !reflect.DeepEqual(w, g) {
			t.Errorf("%s:\nFolio  %s\nVectra %s", key, got, want)
		}
	}
}
