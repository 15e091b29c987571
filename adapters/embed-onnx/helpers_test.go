package embedonnx

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen"
)

// tinyModel writes a small BERT-shaped model folder (random weights, the
// graph of MiniLM) into a temporary folder and returns the folder and its
// weights.
func tinyModel(t testing.TB, f bertgen.Folder) (string, *bertgen.Weights) {
	t.Helper()
	if f.Vocab == nil {
		f.Vocab = bertgen.TinyVocab()
	}
	if !f.TokenizerJSON && !f.VocabTxt {
		f.TokenizerJSON = true
	}
	w := bertgen.NewWeights(bertgen.Tiny(len(f.Vocab)))
	dir := filepath.Join(t.TempDir(), "model")
	if err := bertgen.WriteFolder(dir, w, f); err != nil {
		t.Fatal(err)
	}
	return dir, w
}

// referenceEmbedding is the expected vector of ids, computed without ONNX
// Runtime: the plain Go forward pass of the same weights, pooled in float64.
func referenceEmbedding(w *bertgen.Weights, ids []int, pooling Pooling, normalize bool) []float64 {
	hidden := w.Forward(ids, make([]int, len(ids)))
	vec := make([]float64, w.Hidden)
	if pooling == PoolingCLS {
		copy(vec, hidden[0])
	} else {
		for _, row := range hidden {
			for j, v := range row {
				vec[j] += v / float64(len(hidden))
			}
		}
	}
	if normalize {
		var sum float64
		for _, v := range vec {
			sum += v * v
		}
		for j := range vec {
			vec[j] /= math.Sqrt(sum)
		}
	}
	return vec
}

// maxAbsDiff is the largest component difference, +Inf for unequal lengths.
func maxAbsDiff(got []float32, want []float64) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range got {
		d = max(d, math.Abs(float64(got[i])-want[i]))
	}
	return d
}

func ptr[T any](v T) *T { return &v }
