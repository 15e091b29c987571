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
	"github.com/foliovec/folio/adapters/embed-onnx/hub/hubtest"
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
	if !strings.Contains(page.Missing, "/models/no/such-model/") || !strings.Contains(page.Missing, "allowRemoteModels is false") {
		t.Errorf("a model that is not served, the hub not asked: %q, want an error naming where it looked", page.Missing)
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

// TestTransformersEmbeddingsFromTheHub: a model named by hub id, on no
// page's site, is fetched from a fake hub on 127.0.0.1 (large files
// redirected to a second host), reports progress, embeds as the native
// adapter does, and is kept in Cache Storage: a reload makes no request to
// either host. A download whose bytes are not the hub's is refused and not
// cached.
func TestTransformersEmbeddingsFromTheHub(t *testing.T) {
	if os.Getenv("FOLIO_ORT_WEB") == "" {
		t.Skip("FOLIO_ORT_WEB is not set (make test fetches onnxruntime-web and sets it)")
	}
	s := newSite(t, nil)
	model := filepath.Join(t.TempDir(), "tiny-bert")
	gen := exec.Command("go", "run", "github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen/tinymodel", model)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("generate the tiny model: %v\n%s", err, out)
	}
	srv := hubtest.New()
	defer srv.Close()
	for _, id := range []string{"acme/tiny-bert", "acme/tiny-bert-copy"} {
		if _, err := srv.AddFolder(id, model); err != nil {
			t.Fatal(err)
		}
	}
	type progress struct {
		Status, Name, File string
		Loaded, Total      int64
		Progress           float64
	}
	var page struct {
		Progress            []progress
		Status, Message     string
		Output              [][]float64
		Cached, CachedAfter []string
		Broken              string
	}
	ctx := newBrowser(t)
	params := map[string]string{"test": "hub", "lib": "folio", "model": "acme/tiny-bert", "hub": srv.URL}
	s.runPage(t, ctx, params, &page)
	if page.Status != "success" || len(page.Output) != 2 {
		t.Fatalf("createEmbeddings: %q (%s), %d vectors", page.Status, page.Message, len(page.Output))
	}
	first := srv.Requests()
	var fromFiles, fromHub int
	for _, r := range first {
		switch {
		case strings.HasPrefix(r, "files GET /blobs/"):
			fromFiles++
		case strings.HasPrefix(r, "hub GET /acme/tiny-bert/resolve/main/"):
			fromHub++
		}
	}
	if fromFiles != 1 || fromHub < 2 {
		t.Errorf("first load: %v; want the ONNX file from the file host and the small files from the hub", first)
	}
	var downloaded, progressed, ready bool
	for _, p := range page.Progress {
		downloaded = downloaded || p.Status == "download" && p.File == "onnx/model.onnx"
		progressed = progressed || p.Status == "progress" && p.File == "onnx/model.onnx" && p.Total > 0 && p.Loaded == p.Total && p.Progress == 100
		ready = ready || p.Status == "ready" && p.Name == "acme/tiny-bert"
	}
	if !downloaded || !progressed || !ready {
		t.Errorf("progress %+v: want download, progress to 100 %% of onnx/model.onnx, and ready", page.Progress)
	}
	if len(page.Cached) < 3 {
		t.Errorf("Cache Storage holds %v, want the model's files", page.Cached)
	}

	native := embedonnx.NewLocalEmbeddings(&embedonnx.LocalOptions{Model: model})
	defer native.Close()
	want, err := native.CreateEmbeddings(t.Context(), []string{"hello world", "The quick brown fox jumps over the lazy dog."})
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "a model fetched from the hub", page.Output, want.Output)

	// A reload: everything from Cache Storage.
	srv.Break("onnx/model.onnx", hubtest.Corrupt)
	params["broken"] = "acme/tiny-bert-copy"
	s.runPage(t, ctx, params, &page)
	compare(t, "the model after a reload", page.Output, want.Output)
	fileGets := 0
	for _, r := range srv.Requests() {
		if strings.Contains(r, "/acme/tiny-bert/") {
			t.Errorf("a reload requested %s", r)
		}
		if strings.HasPrefix(r, "files GET") {
			fileGets++
		}
	}
	if fileGets != 1 {
		t.Errorf("the reload made %d file-host requests, want only the second model's", fileGets)
	}
	if !strings.Contains(page.Broken, "not the hub's bytes") || !strings.Contains(page.Broken, "onnx/model.onnx") {
		t.Errorf("a corrupted download: %q, want it refused", page.Broken)
	}
	for _, u := range page.CachedAfter {
		if strings.Contains(u, "tiny-bert-copy") && strings.HasSuffix(u, ".onnx") {
			t.Errorf("a corrupted file was cached: %s", u)
		}
	}
}
