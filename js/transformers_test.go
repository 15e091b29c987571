//go:build !(js && wasm)

package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	embedonnx "github.com/foliovec/folio/adapters/embed-onnx"
)

// TestTransformersEmbeddingsInPage loads the generated tiny BERT in the
// page with TransformersEmbeddings (onnxruntime-web, Folio's WordPiece and
// pooling in wasm) and compares its vectors with embedonnx.LocalEmbeddings'
// for the same texts (native ONNX Runtime): max abs diff < 1e-5. Its token
// ids equal the native tokenizer's, and a document index built in the
// page with the model finds the right document.
func TestTransformersEmbeddingsInPage(t *testing.T) {
	if os.Getenv("FOLIO_ORT_WEB") == "" {
		t.Skip("FOLIO_ORT_WEB is not set (make test fetches onnxruntime-web and sets it)")
	}
	s := newSite(t, nil)
	model := filepath.Join(s.dir, "models", "tiny-bert")
	os.RemoveAll(model)
	gen := exec.Command("go", "run", "github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen/tinymodel", model)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("generate the tiny model: %v\n%s", err, out)
	}

	// The q8 variant's file: the same model under transformers.js's name.
	onnx, err := os.ReadFile(filepath.Join(model, "onnx", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(model, "onnx", "model_quantized.onnx"), onnx, 0o644); err != nil {
		t.Fatal(err)
	}

	ctx := newBrowser(t)
	var page struct {
		Inputs      []string
		Progress    []string
		Model       string
		MaxTokens   int
		Status      string
		Message     string
		Output      [][]float64
		CLS         [][]float64
		Single      [][]float64
		IDs         [][]int
		Decoded     string
		IsTokenizer bool
		Hits        []string
		Missing     string
	}
	s.runPage(t, ctx, map[string]string{"test": "embeddings", "lib": "folio", "model": "/models/tiny-bert/"}, &page)
	if page.Status != "success" || len(page.Output) != len(page.Inputs) {
		t.Fatalf("createEmbeddings in the page: status %q (%s), %d vectors for %d inputs", page.Status, page.Message, len(page.Output), len(page.Inputs))
	}

	native := embedonnx.NewLocalEmbeddings(&embedonnx.LocalOptions{Model: model})
	defer native.Close()
	want, err := native.CreateEmbeddings(t.Context(), page.Inputs)
	if err != nil {
		t.Fatalf("native LocalEmbeddings: %v", err)
	}
	compare(t, "mean pooling, normalised", page.Output, want.Output)

	cls, err := embedonnx.CreateTransformersEmbeddings(t.Context(), &embedonnx.TransformersOptions{
		Model: model, Pooling: embedonnx.PoolingCLS, Normalize: new(false), Dtype: embedonnx.DtypeQ8, Device: embedonnx.DeviceCPU,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cls.Close()
	wantCLS, err := cls.CreateEmbeddings(t.Context(), page.Inputs)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "CLS pooling, not normalised, q8 file", page.CLS, wantCLS.Output)
	if len(page.Single) != 1 || !slices.Equal(page.Single[0], page.Output[0]) {
		t.Errorf("createEmbeddings(a string) gave %d vectors, or not the first vector of the list", len(page.Single))
	}

	tok, err := embedonnx.NewTransformersTokenizer(model)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range page.Inputs {
		if !slices.Equal(page.IDs[i], tok.Encode(text)) {
			t.Errorf("encode(%q) in the page = %v, natively %v", text, page.IDs[i], tok.Encode(text))
		}
	}
	if page.Decoded != tok.Decode(tok.Encode("Hello, World")) || !page.IsTokenizer {
		t.Errorf("decode in the page = %q (a TransformersTokenizer: %v), natively %q", page.Decoded, page.IsTokenizer, tok.Decode(tok.Encode("Hello, World")))
	}
	if page.MaxTokens != 512 || page.Model != "/models/tiny-bert/" {
		t.Errorf("model %q, maxTokens %d; want the model asked for and 512", page.Model, page.MaxTokens)
	}
	if !slices.Contains(page.Progress, "ready ") || !slices.Contains(page.Progress, "done onnx/model.onnx") {
		t.Errorf("progress reports %v, want the model file's and ready", page.Progress)
	}
	if len(page.Hits) == 0 || page.Hits[0] != "fox.txt" {
		t.Errorf("a document index with the model answers %v, want fox.txt first", page.Hits)
	}
	if !strings.Contains(page.Missing, "never downloaded") {
		t.Errorf("a model that is not served: %q, want an error saying models are never downloaded", page.Missing)
	}
}

// compare fails unless every vector of the page is within 1e-5 of the
// native one, component by component.
func compare(t *testing.T, what string, page [][]float64, native [][]float32) {
	t.Helper()
	if len(page) != len(native) {
		t.Fatalf("%s: %d vectors in the page, %d natively", what, len(page), len(native))
	}
	worst := 0.0
	for i, vec := range native {
		if len(page[i]) != len(vec) {
			t.Fatalf("%s: input %d: %d dimensions in the page, %d natively", what, i, len(page[i]), len(vec))
		}
		for j, v := range vec {
			worst = max(worst, math.Abs(page[i][j]-float64(v)))
		}
	}
	t.Logf("%s: max abs diff, page against native, over %d vectors of %d: %.3g", what, len(native), len(native[0]), worst)
	if worst >= 1e-5 {
		t.Errorf("%s: max abs diff %.3g, want < 1e-5", what, worst)
	}
}
