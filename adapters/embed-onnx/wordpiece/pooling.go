package wordpiece

import (
	"fmt"
	"math"

	"github.com/foliovec/folio/core"
)

// Pooling turns a sequence's per-token hidden states into one vector.
type Pooling string

// Poolings, as Vectra names them.
const (
	// PoolingMean averages the hidden states of the real tokens ([CLS] and
	// [SEP] included, padding excluded), as sentence-transformers does.
	PoolingMean Pooling = "mean"
	// PoolingCLS takes the hidden state of the first token ([CLS]).
	PoolingCLS Pooling = "cls"
)

// Validate reports an unknown pooling as core.ErrInvalidArgument.
func (p Pooling) Validate() error {
	switch p {
	case "", PoolingMean, PoolingCLS:
		return nil
	}
	return fmt.Errorf("wordpiece: pooling %q: want mean or cls: %w", p, core.ErrInvalidArgument)
}

// Pool reduces row r of a flat [batch][seq][hidden] output, whose first
// n tokens are real, in float64, normalising to unit length when asked.
func Pool(hidden []float32, r, seq, dim, n int, p Pooling, normalize bool) []float32 {
	acc := make([]float64, dim)
	base := r * seq * dim
	if p == PoolingCLS {
		for j := range dim {
			acc[j] = float64(hidden[base+j])
		}
	} else {
		for t := range n {
			row := hidden[base+t*dim : base+(t+1)*dim]
			for j, v := range row {
				acc[j] += float64(v)
			}
		}
		for j := range acc {
			acc[j] /= float64(n)
		}
	}
	if normalize {
		var sum float64
		for _, v := range acc {
			sum += v * v
		}
		// A zero vector stays zero rather than turning into NaNs.
		if norm := math.Sqrt(sum); norm > 0 {
			for j := range acc {
				acc[j] /= norm
			}
		}
	}
	out := make([]float32, dim)
	for j, v := range acc {
		out[j] = float32(v)
	}
	return out
}
