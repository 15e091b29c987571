package bertgen

import (
	"math/rand/v2"
)

// Config is the shape of a BERT encoder.
type Config struct {
	VocabSize    int
	Hidden       int
	Layers       int
	Heads        int
	Intermediate int
	MaxPositions int
	TypeVocab    int
	LayerNormEps float64
	// Seed makes the weights; equal configs with equal seeds give equal weights.
	Seed uint64
}

// MiniLML6 is the exact shape of all-MiniLM-L6-v2 (about 22.7 million
// parameters, 90 MB as fp32).
func MiniLML6() Config {
	return Config{
		VocabSize: 30522, Hidden: 384, Layers: 6, Heads: 12, Intermediate: 1536,
		MaxPositions: 512, TypeVocab: 2, LayerNormEps: 1e-12, Seed: 6,
	}
}

// Tiny is a small encoder of the same structure, for fast tests.
func Tiny(vocabSize int) Config {
	return Config{
		VocabSize: vocabSize, Hidden: 32, Layers: 2, Heads: 4, Intermediate: 64,
		MaxPositions: 64, TypeVocab: 2, LayerNormEps: 1e-12, Seed: 1,
	}
}

// Layer holds one encoder layer's weights. Matrices are row-major
// [in][out], as MatMul(x, W) uses them.
type Layer struct {
	Q, K, V, O           []float32 // Hidden x Hidden
	QB, KB, VB, OB       []float32 // Hidden
	AttnLNG, AttnLNB     []float32 // Hidden
	FF1                  []float32 // Hidden x Intermediate
	FF1B                 []float32 // Intermediate
	FF2                  []float32 // Intermediate x Hidden
	FF2B                 []float32 // Hidden
	OutputLNG, OutputLNB []float32 // Hidden
}

// Weights is a BERT encoder's parameters.
type Weights struct {
	Config
	Word     []float32 // VocabSize x Hidden
	Position []float32 // MaxPositions x Hidden
	Type     []float32 // TypeVocab x Hidden
	EmbLNG   []float32
	EmbLNB   []float32
	Layers   []Layer
}

// NewWeights makes deterministic pseudo-random weights for cfg, scaled so
// that every part of the network moves the output.
func NewWeights(cfg Config) *Weights {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	uniform := func(n int, scale float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32((rng.Float64()*2 - 1) * scale)
		}
		return v
	}
	around := func(n int, centre, scale float64) []float32 {
		v := uniform(n, scale)
		for i := range v {
			v[i] += float32(centre)
		}
		return v
	}
	h, ff := cfg.Hidden, cfg.Intermediate
	w := &Weights{
		Config:   cfg,
		Word:     uniform(cfg.VocabSize*h, 1),
		Position: uniform(cfg.MaxPositions*h, 0.5),
		Type:     uniform(cfg.TypeVocab*h, 0.5),
		EmbLNG:   around(h, 1, 0.2),
		EmbLNB:   uniform(h, 0.2),
	}
	// Scales near 1/sqrt(fan-in) keep activations of order one.
	sh, sff := 1.7/sqrtf(h), 1.7/sqrtf(ff)
	for range cfg.Layers {
		w.Layers = append(w.Layers, Layer{
			Q: uniform(h*h, sh), K: uniform(h*h, sh), V: uniform(h*h, sh), O: uniform(h*h, sh),
			QB: uniform(h, 0.1), KB: uniform(h, 0.1), VB: uniform(h, 0.1), OB: uniform(h, 0.1),
			AttnLNG: around(h, 1, 0.2), AttnLNB: uniform(h, 0.2),
			FF1: uniform(h*ff, sh), FF1B: uniform(ff, 0.1),
			FF2: uniform(ff*h, sff), FF2B: uniform(h, 0.1),
			OutputLNG: around(h, 1, 0.2), OutputLNB: uniform(h, 0.2),
		})
	}
	return w
}
