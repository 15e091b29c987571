package embedonnx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen"
	"github.com/foliovec/folio/conformance/embedtest"
	"github.com/foliovec/folio/core"
)

// tolerance is how far ONNX Runtime's float32 inference may be from the
// float64 reference.
const tolerance = 1e-5

// texts cover short and long inputs, unicode and accented text, and
// lengths that differ so that batches need padding.
var texts = []string{
	"hello world",
	"the quick brown fox jump the lazy dog",
	"",
	"Café, naïve RÉSUMÉ über Straße",
	"日本 中文 and emoji 🎉 ☃",
	"unaffable",
	strings.Repeat("vector index ", 40), // past the 64-token maximum: truncated
	"HELLO,WORLD!!",
}

// truncatedIDs is the reference truncation: the first maxLen-1 ids, then [SEP].
func truncatedIDs(tok *TransformersTokenizer, text string) []int {
	ids := tok.Encode(text)
	if len(ids) > tok.MaxLength() {
		ids = append(ids[:tok.MaxLength()-1:tok.MaxLength()-1], ids[len(ids)-1])
	}
	return ids
}

func create(t testing.TB, opts TransformersOptions) *TransformersEmbeddings {
	t.Helper()
	m, err := CreateTransformersEmbeddings(t.Context(), &opts)
	if err != nil {
		t.Fatalf("CreateTransformersEmbeddings: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestEmbeddingsMatchReferenceForwardPass(t *testing.T) {
	dir, w := tinyModel(t, bertgen.Folder{Uncased: true})
	for _, tc := range []struct {
		name      string
		pooling   Pooling
		normalize bool
	}{
		{"mean pooling, normalised", PoolingMean, true},
		{"mean pooling, not normalised", PoolingMean, false},
		{"cls pooling, normalised", PoolingCLS, true},
		{"cls pooling, not normalised", PoolingCLS, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := create(t, TransformersOptions{Model: dir, Pooling: tc.pooling, Normalize: ptr(tc.normalize), Device: DeviceCPU})
			tok := m.GetTokenizer()
			// One batch with every text (padded), then each text alone.
			batch, err := m.CreateEmbeddings(t.Context(), texts)
			if err != nil {
				t.Fatal(err)
			}
			if batch.Status != core.EmbeddingsSuccess || len(batch.Output) != len(texts) || batch.Model != dir {
				t.Fatalf("response: status %q, %d vectors, model %q", batch.Status, len(batch.Output), batch.Model)
			}
			for i, text := range texts {
				want := referenceEmbedding(w, truncatedIDs(tok, text), tc.pooling, tc.normalize)
				if d := maxAbsDiff(batch.Output[i], want); d > tolerance {
					t.Errorf("%q in a batch: differs from the reference by %g", text, d)
				}
				alone, err := m.CreateEmbeddings(t.Context(), []string{text})
				if err != nil {
					t.Fatal(err)
				}
				if d := maxAbsDiff(alone.Output[0], want); d > tolerance {
					t.Errorf("%q alone: differs from the reference by %g", text, d)
				}
			}
		})
	}
}

func TestEmbeddingsBatchesLargerThanOneRun(t *testing.T) {
	dir, w := tinyModel(t, bertgen.Folder{Uncased: true})
	m := create(t, TransformersOptions{Model: dir, Device: DeviceCPU})
	m.engine.batchTokens = 40 // force many runs of different padded lengths
	var inputs []string
	for i := range 30 {
		inputs = append(inputs, texts[i%len(texts)]+strings.Repeat(" fox", i%7))
	}
	resp, err := m.CreateEmbeddings(t.Context(), inputs)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range inputs {
		want := referenceEmbedding(w, truncatedIDs(m.GetTokenizer(), text), PoolingMean, true)
		if d := maxAbsDiff(resp.Output[i], want); d > tolerance {
			t.Errorf("input %d %q: differs from the reference by %g", i, text, d)
		}
	}
}

func TestEmbeddingsModelVariants(t *testing.T) {
	for _, tc := range []struct {
		name   string
		folder bertgen.Folder
		tol    float64
	}{
		{"model.onnx at the folder's root", bertgen.Folder{ModelFile: "model.onnx"}, tolerance},
		{"vocab.txt instead of tokenizer.json", bertgen.Folder{VocabTxt: true}, tolerance},
		{"no token_type_ids input", bertgen.Folder{Model: bertgen.ModelOptions{NoTokenTypeInput: true}}, tolerance},
		{"output under another name", bertgen.Folder{Model: bertgen.ModelOptions{OutputName: "token_embeddings"}}, tolerance},
		{"a position_ids input", bertgen.Folder{Model: bertgen.ModelOptions{PositionIDsInput: true}}, tolerance},
		{"inputs in another order", bertgen.Folder{Model: bertgen.ModelOptions{PositionIDsInput: true, ReverseInputs: true}}, tolerance},
		{"float16 output", bertgen.Folder{Model: bertgen.ModelOptions{Float16Output: true}}, 2e-3},
		{"no config.json", bertgen.Folder{NoConfig: true, MaxLength: 64}, tolerance},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.folder.Uncased = true
			dir, w := tinyModel(t, tc.folder)
			m := create(t, TransformersOptions{Model: dir, Device: DeviceCPU})
			resp, err := m.CreateEmbeddings(t.Context(), texts)
			if err != nil {
				t.Fatal(err)
			}
			for i, text := range texts {
				want := referenceEmbedding(w, truncatedIDs(m.GetTokenizer(), text), PoolingMean, true)
				if d := maxAbsDiff(resp.Output[i], want); d > tc.tol {
					t.Errorf("%q: differs from the reference by %g", text, d)
				}
			}
		})
	}
}

func TestEmbeddingsDtypeChoosesTheModelFile(t *testing.T) {
	// Each variant file holds a model with different weights, so the
	// vectors tell which file was loaded.
	vocab := bertgen.TinyVocab()
	dir := t.TempDir()
	weights := map[string]*bertgen.Weights{}
	for i, file := range []string{"onnx/model.onnx", "onnx/model_fp16.onnx", "model_quantized.onnx", "onnx/model_q4.onnx"} {
		cfg := bertgen.Tiny(len(vocab))
		cfg.Seed = uint64(100 + i)
		w := bertgen.NewWeights(cfg)
		f := bertgen.Folder{ModelFile: file, Vocab: vocab, TokenizerJSON: true, Uncased: true}
		if err := bertgen.WriteFolder(dir, w, f); err != nil {
			t.Fatal(err)
		}
		weights[file] = w
	}
	for _, tc := range []struct {
		dtype Dtype
		file  string
	}{
		{"", "onnx/model.onnx"},
		{DtypeFP32, "onnx/model.onnx"},
		{DtypeFP16, "onnx/model_fp16.onnx"},
		{DtypeQ8, "model_quantized.onnx"},
		{DtypeQ4, "onnx/model_q4.onnx"},
	} {
		t.Run("dtype "+string(tc.dtype)+" loads "+tc.file, func(t *testing.T) {
			m := create(t, TransformersOptions{Model: dir, Dtype: tc.dtype, Device: DeviceCPU})
			resp, err := m.CreateEmbeddings(t.Context(), []string{"hello world"})
			if err != nil {
				t.Fatal(err)
			}
			want := referenceEmbedding(weights[tc.file], m.GetTokenizer().Encode("hello world"), PoolingMean, true)
			if d := maxAbsDiff(resp.Output[0], want); d > tolerance {
				t.Errorf("the vector is not %s's (differs by %g)", tc.file, d)
			}
		})
	}
	t.Run("a missing variant is a clear error", func(t *testing.T) {
		only, _ := tinyModel(t, bertgen.Folder{})
		_, err := CreateTransformersEmbeddings(t.Context(), &TransformersOptions{Model: only, Dtype: DtypeQ8})
		if !errors.Is(err, ErrModelNotFound) || !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("err = %v, want ErrModelNotFound", err)
		}
		for _, name := range []string{"q8", "onnx/model_quantized.onnx", "model_int8.onnx"} {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not name %s", err, name)
			}
		}
	})
	t.Run("an unknown dtype is invalid", func(t *testing.T) {
		_, err := CreateTransformersEmbeddings(t.Context(), &TransformersOptions{Model: dir, Dtype: "int3"})
		if !errors.Is(err, core.ErrInvalidArgument) {
			t.Fatalf("err = %v, want ErrInvalidArgument", err)
		}
	})
}

func TestEmbeddingsDevice(t *testing.T) {
	dir, _ := tinyModel(t, bertgen.Folder{})
	for _, d := range []Device{"", DeviceAuto, DeviceCPU, DeviceWASM} {
		t.Run("device "+string(d)+" runs here", func(t *testing.T) {
			m := create(t, TransformersOptions{Model: dir, Device: d})
			if _, err := m.CreateEmbeddings(t.Context(), []string{"hello"}); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("device gpu fails clearly without CUDA", func(t *testing.T) {
		// The runtime library installed by make onnxruntime has no CUDA
		// provider, so gpu cannot be satisfied on any machine it runs on.
		_, err := CreateTransformersEmbeddings(t.Context(), &TransformersOptions{Model: dir, Device: DeviceGPU})
		if !errors.Is(err, ErrDeviceUnavailable) {
			t.Fatalf("err = %v, want ErrDeviceUnavailable", err)
		}
		if !strings.Contains(err.Error(), "CUDA") {
			t.Errorf("error %q does not say CUDA is what is missing", err)
		}
	})
	t.Run("an unknown device is invalid", func(t *testing.T) {
		_, err := CreateTransformersEmbeddings(t.Context(), &TransformersOptions{Model: dir, Device: "tpu"})
		if !errors.Is(err, core.ErrInvalidArgument) {
			t.Fatalf("err = %v, want ErrInvalidArgument", err)
		}
	})
}

func TestEmbeddingsOptions(t *testing.T) {
	dir, _ := tinyModel(t, bertgen.Folder{})
	t.Run("defaults", func(t *testing.T) {
		m := create(t, TransformersOptions{Model: dir})
		if m.MaxTokens() != 512 || m.Model() != dir {
			t.Errorf("MaxTokens %d, Model %q; want 512 and the folder", m.MaxTokens(), m.Model())
		}
		first, second := m.GetTokenizer(), m.GetTokenizer()
		if first == nil || first != second {
			t.Error("GetTokenizer gives a different tokenizer on each call")
		}
	})
	t.Run("MaxTokens is reported as given", func(t *testing.T) {
		if m := create(t, TransformersOptions{Model: dir, MaxTokens: 100}); m.MaxTokens() != 100 {
			t.Errorf("MaxTokens = %d, want 100", m.MaxTokens())
		}
	})
	for _, tc := range []struct {
		name string
		opts TransformersOptions
	}{
		{"negative MaxTokens is invalid", TransformersOptions{Model: dir, MaxTokens: -1}},
		{"negative Threads is invalid", TransformersOptions{Model: dir, Threads: -1}},
		{"an unknown pooling is invalid", TransformersOptions{Model: dir, Pooling: "max"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := CreateTransformersEmbeddings(t.Context(), &tc.opts); !errors.Is(err, core.ErrInvalidArgument) {
				t.Fatalf("err = %v, want ErrInvalidArgument", err)
			}
		})
	}
}

func TestEmbeddingsProgress(t *testing.T) {
	dir, _ := tinyModel(t, bertgen.Folder{})
	var events []Progress
	create(t, TransformersOptions{Model: dir, Progress: func(p Progress) { events = append(events, p) }})
	var statuses []string
	last := map[string]float64{}
	for _, e := range events {
		statuses = append(statuses, e.Status+" "+e.File)
		if e.Fraction < last[e.File] || e.Fraction < 0 || e.Fraction > 1 {
			t.Errorf("fraction of %q went from %g to %g", e.File, last[e.File], e.Fraction)
		}
		last[e.File] = e.Fraction
	}
	got := strings.Join(statuses, ", ")
	for _, want := range []string{"initiate tokenizer.json", "done tokenizer.json", "initiate onnx/model.onnx", "progress onnx/model.onnx", "done onnx/model.onnx"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress events %q lack %q", got, want)
		}
	}
	if len(events) == 0 || events[len(events)-1].Status != "ready" || events[len(events)-1].Fraction != 1 {
		t.Errorf("progress events %q do not end with ready", got)
	}
}

func TestEmbeddingsFailures(t *testing.T) {
	dir, _ := tinyModel(t, bertgen.Folder{})
	t.Run("a cancelled context is status cancelled", func(t *testing.T) {
		m := create(t, TransformersOptions{Model: dir})
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		resp, err := m.CreateEmbeddings(ctx, []string{"hello"})
		if verr := embedtest.CheckResponse([]string{"hello"}, resp, err); verr != nil {
			t.Error(verr)
		}
		if !errors.Is(err, core.ErrEmbeddingsCancelled) || !errors.Is(err, context.Canceled) || resp.Status != core.EmbeddingsCancelled {
			t.Fatalf("err = %v, status %q; want cancelled", err, resp.Status)
		}
	})
	t.Run("a closed model fails with status error", func(t *testing.T) {
		m := create(t, TransformersOptions{Model: dir})
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if err := m.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		resp, err := m.CreateEmbeddings(t.Context(), []string{"hello"})
		if !errors.Is(err, ErrClosed) || !errors.Is(err, core.ErrEmbeddingsFailed) || resp.Status != core.EmbeddingsFailed {
			t.Fatalf("err = %v, status %q; want error status wrapping ErrClosed", err, resp.Status)
		}
		if !strings.HasPrefix(resp.Message, "error generating embeddings: ") {
			t.Errorf("message %q lacks the prefix", resp.Message)
		}
	})
	t.Run("a cancelled context stops loading", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := CreateTransformersEmbeddings(ctx, &TransformersOptions{Model: dir}); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("a model that is not a text encoder is refused", func(t *testing.T) {
		bad := t.TempDir()
		if err := os.CopyFS(bad, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bad, "onnx", "model.onnx"), []byte("not a model"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := CreateTransformersEmbeddings(t.Context(), &TransformersOptions{Model: bad}); err == nil {
			t.Fatal("a corrupt model file loaded")
		}
	})
}

func TestEmbeddingsConformance(t *testing.T) {
	dir, _ := tinyModel(t, bertgen.Folder{Uncased: true})
	embedtest.Run(t, func(t testing.TB) core.EmbeddingsModel {
		m, err := CreateTransformersEmbeddings(context.Background(), &TransformersOptions{Model: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}, embedtest.Capabilities{Deterministic: true, Tolerance: tolerance, Normalized: true, Dimensions: 32, EmbedsEmptyString: true})
}
