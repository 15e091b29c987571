package embedonnx

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen"
	"github.com/foliovec/folio/conformance/embedtest"
	"github.com/foliovec/folio/core"
)

func TestLocalEmbeddingsOptions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      LocalOptions
		model     string
		maxTokens int
	}{
		{"defaults: all-MiniLM-L6-v2 and 256 tokens", LocalOptions{}, DefaultModel, 256},
		{"a custom model", LocalOptions{Model: "acme/mini"}, "acme/mini", 256},
		{"custom MaxTokens", LocalOptions{MaxTokens: 128}, DefaultModel, 128},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewLocalEmbeddings(&tc.opts)
			if m.Model() != tc.model || m.MaxTokens() != tc.maxTokens {
				t.Errorf("Model %q MaxTokens %d, want %q %d", m.Model(), m.MaxTokens(), tc.model, tc.maxTokens)
			}
		})
	}
}

func TestLocalEmbeddingsMatchReference(t *testing.T) {
	dir, w := tinyModel(t, bertgen.Folder{Uncased: true})
	m := NewLocalEmbeddings(&LocalOptions{Model: dir})
	t.Cleanup(func() { m.Close() })
	resp, err := m.CreateEmbeddings(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "" {
		t.Errorf("Model = %q: LocalEmbeddings' responses carry no model, as in Vectra", resp.Model)
	}
	for i, text := range texts {
		want := referenceEmbedding(w, truncatedIDs(m.engine.tokenizer, text), PoolingMean, true)
		if d := maxAbsDiff(resp.Output[i], want); d > tolerance {
			t.Errorf("%q: differs from the reference (mean pooling, normalised) by %g", text, d)
		}
	}
}

func TestLocalEmbeddingsLoadOnFirstUse(t *testing.T) {
	t.Run("nothing is loaded before the first call", func(t *testing.T) {
		m := NewLocalEmbeddings(&LocalOptions{Model: filepath.Join(t.TempDir(), "absent")})
		if m.engine != nil || m.loads != 0 {
			t.Fatal("the model loaded at construction")
		}
	})
	t.Run("concurrent first calls load the model once", func(t *testing.T) {
		dir, _ := tinyModel(t, bertgen.Folder{})
		m := NewLocalEmbeddings(&LocalOptions{Model: dir})
		t.Cleanup(func() { m.Close() })
		var wg sync.WaitGroup
		results := make([][]float32, 8)
		for g := range results {
			wg.Go(func() {
				resp, err := m.CreateEmbeddings(t.Context(), []string{"hello world"})
				if err != nil {
					t.Error(err)
					return
				}
				results[g] = resp.Output[0]
			})
		}
		wg.Wait()
		if m.loads != 1 {
			t.Errorf("the model was loaded %d times, want once", m.loads)
		}
		for g := range results {
			if maxAbsDiff(results[g], toFloat64(results[0])) > tolerance {
				t.Errorf("caller %d got another vector", g)
			}
		}
	})
	t.Run("a failed load is an error status, and the next call tries again", func(t *testing.T) {
		dir, _ := tinyModel(t, bertgen.Folder{})
		target := filepath.Join(t.TempDir(), "later")
		m := NewLocalEmbeddings(&LocalOptions{Model: target})
		t.Cleanup(func() { m.Close() })
		resp, err := m.CreateEmbeddings(t.Context(), []string{"hello"})
		if verr := embedtest.CheckResponse([]string{"hello"}, resp, err); verr != nil {
			t.Error(verr)
		}
		if !errors.Is(err, core.ErrEmbeddingsFailed) || !errors.Is(err, ErrModelNotFound) || resp.Status != core.EmbeddingsFailed {
			t.Fatalf("err = %v, status %q; want an error status wrapping ErrModelNotFound", err, resp.Status)
		}
		if err := os.Rename(dir, target); err != nil {
			t.Fatal(err)
		}
		if _, err := m.CreateEmbeddings(t.Context(), []string{"hello"}); err != nil {
			t.Fatalf("after the model was put in place: %v", err)
		}
	})
	t.Run("Close releases the model and later calls fail", func(t *testing.T) {
		dir, _ := tinyModel(t, bertgen.Folder{})
		m := NewLocalEmbeddings(&LocalOptions{Model: dir})
		if _, err := m.CreateEmbeddings(t.Context(), []string{"hello"}); err != nil {
			t.Fatal(err)
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := m.CreateEmbeddings(t.Context(), []string{"hello"}); !errors.Is(err, ErrClosed) {
			t.Fatalf("after Close: %v, want ErrClosed", err)
		}
	})
}

func TestLocalEmbeddingsConformance(t *testing.T) {
	dir, _ := tinyModel(t, bertgen.Folder{Uncased: true})
	embedtest.Run(t, func(t testing.TB) core.EmbeddingsModel {
		m := NewLocalEmbeddings(&LocalOptions{Model: dir})
		t.Cleanup(func() { m.Close() })
		return m
	}, embedtest.Capabilities{Deterministic: true, Tolerance: tolerance, Normalized: true, Dimensions: 32, EmbedsEmptyString: true})
}

func toFloat64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
