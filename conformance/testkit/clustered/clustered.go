// Package clustered generates vectors that behave like text embeddings, for
// benchmarks and recall checks: a mixture of Gaussian clusters around
// centres on the unit sphere, all sharing a common direction (embeddings of
// one model are anisotropic: two unrelated texts still have a cosine
// similarity around 0.2), each vector normalised. Uniform random vectors,
// by contrast, have no neighbourhoods at all and are the worst case for any
// coarse code.
//
// Every vector is a function of the set's seed and its index alone, so a
// set of any size is generated in pieces, in parallel, without holding it;
// queries come from a separate stream of the same mixture, so none is a
// stored vector.
package clustered

import (
	"math"
	"math/rand/v2"

	"github.com/foliovec/folio/conformance/testkit"
)

// Set is a mixture. Its zero value is not usable: call New.
type Set struct {
	dim     int
	seed    uint64
	spread  float64
	centres [][]float32
	common  []float32
}

// Defaults of New's arguments where they are zero.
const (
	// DefaultCentres is a few thousand topics.
	DefaultCentres = 2000
	// DefaultSpread is the length of a vector's offset from its centre,
	// relative to the centre's: about 0.8 cosine similarity between a
	// vector and its centre, 0.6 between two vectors of one cluster.
	DefaultSpread = 0.75
	// commonWeight is the weight of the direction all vectors share: about
	// 0.2 cosine similarity between vectors of unrelated clusters.
	commonWeight = 0.5
)

// New returns the mixture of centres clusters (DefaultCentres when 0) in
// dim dimensions, with offsets of length spread (DefaultSpread when 0),
// drawn from seed.
func New(dim, centres int, spread float64, seed uint64) *Set {
	if centres <= 0 {
		centres = DefaultCentres
	}
	if spread <= 0 {
		spread = DefaultSpread
	}
	r := rand.New(rand.NewPCG(seed, 0x636c757374657273))
	s := &Set{dim: dim, seed: seed, spread: spread, common: testkit.UnitVector(r, dim)}
	s.centres = make([][]float32, centres)
	for i := range s.centres {
		s.centres[i] = testkit.UnitVector(r, dim)
	}
	return s
}

// Dim is the vectors' length.
func (s *Set) Dim() int { return s.dim }

// Vector writes vector i of the set into dst (of length Dim).
func (s *Set) Vector(i int, dst []float32) { s.draw(1, uint64(i), dst) }

// Query writes query j into dst: a vector of the same mixture that is not
// in the set.
func (s *Set) Query(j int, dst []float32) { s.draw(2, uint64(j), dst) }

// draw writes member i of stream into dst. A cluster's size follows its
// rank (Zipf-like), as topics do in a corpus.
func (s *Set) draw(stream, i uint64, dst []float32) {
	r := rand.New(rand.NewPCG(s.seed^stream<<56, i))
	// Inverse-transform sampling of a 1/(k+1) law over the centres.
	n := float64(len(s.centres))
	k := int(math.Exp(r.Float64()*math.Log(n+1))) - 1
	c := s.centres[min(max(k, 0), len(s.centres)-1)]
	sd := s.spread / math.Sqrt(float64(s.dim))
	var sum float64
	for d := range dst {
		x := float64(c[d]) + commonWeight*float64(s.common[d]) + sd*r.NormFloat64()
		dst[d] = float32(x)
		sum += x * x
	}
	scale := float32(1 / math.Sqrt(sum))
	for d := range dst {
		dst[d] *= scale
	}
}
