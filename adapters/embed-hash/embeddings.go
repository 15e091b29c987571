package embedhash

import (
	"context"
	"fmt"
	"math"

	"github.com/foliovec/folio/core"
)

// Defaults for a zero Options.
const (
	DefaultDimensions = 384
	DefaultMaxTokens  = 500
)

// Options configures a HashEmbeddings. The zero value is valid.
type Options struct {
	// Dimensions is the length of every vector; 0 or less means
	// DefaultDimensions (384). 32 reproduces Folio's Vectra fixtures.
	Dimensions int
	// MaxTokens is what MaxTokens reports, the batch budget a document index
	// plans with; 0 or less means DefaultMaxTokens (500). The model itself
	// accepts texts of any length.
	MaxTokens int
}

// HashEmbeddings is a lexical embeddings model: words hashed into dimensions.
// It matches words, not meaning.
type HashEmbeddings struct {
	dims      int
	maxTokens int
	model     string
}

var _ core.EmbeddingsModel = (*HashEmbeddings)(nil)

// New returns a model with opts' dimensions (384 when opts.Dimensions <= 0)
// and token budget (500 when opts.MaxTokens <= 0); nil opts are the
// defaults.
func New(opts *Options) *HashEmbeddings {
	var o Options
	if opts != nil {
		o = *opts
	}
	m := &HashEmbeddings{dims: o.Dimensions, maxTokens: o.MaxTokens}
	if m.dims <= 0 {
		m.dims = DefaultDimensions
	}
	if m.maxTokens <= 0 {
		m.maxTokens = DefaultMaxTokens
	}
	m.model = fmt.Sprintf("embedhash-%d", m.dims)
	return m
}

// Dimensions is the length of every vector the model returns.
func (m *HashEmbeddings) Dimensions() int { return m.dims }

// MaxTokens is the token budget of one CreateEmbeddings call.
func (m *HashEmbeddings) MaxTokens() int { return m.maxTokens }

// CreateEmbeddings returns one unit vector per input, in input order, with
// Model "embedhash-<dimensions>". An empty input list succeeds with no
// vectors. It fails only when ctx is done.
func (m *HashEmbeddings) CreateEmbeddings(ctx context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	out := make([][]float32, len(inputs))
	for i, text := range inputs {
		if err := ctx.Err(); err != nil {
			ee := &core.EmbeddingsError{
				Status:  core.EmbeddingsCancelled,
				Message: fmt.Sprintf("embedhash: embed input %d of %d: %v", i, len(inputs), err),
				Err:     err,
			}
			return core.EmbeddingsResponse{Status: ee.Status, Message: ee.Message}, ee
		}
		out[i] = toFloat32(vector(text, m.dims))
	}
	return core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: out, Model: m.model}, nil
}

// vector is text's embedding in float64, before the conversion to float32.
func vector(text string, dims int) []float64 {
	v := make([]float64, dims)
	eachWord(text, func(_, _ int, h uint32) {
		w := 1 + float64((h>>8)&0xFF)/256
		if h&0x80000000 != 0 {
			w = -w
		}
		v[h%uint32(dims)] += w
	})
	sum := 0.0
	for _, x := range v {
		sum += float64(x * x) // the conversion forbids a fused multiply-add, for bit-exact sums
	}
	if sum == 0 {
		v[0] = 1
		return v
	}
	n := math.Sqrt(sum)
	for i := range v {
		v[i] /= n
	}
	return v
}

func toFloat32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}
