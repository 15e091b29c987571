package codecpb_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/foliovec/folio/core"
)

// benchCategories are the ten values of the benchmark's category field.
var benchCategories = [10]string{"news", "sports", "tech", "science", "arts", "travel", "food", "health", "business", "music"}

// benchIndex generates the benchmark dataset deterministically (fixed
// seed): n items with uuid-shaped ids, dims-dimension Gaussian vectors
// scaled to unit length, and two indexed metadata fields, a category (one
// of ten strings) and a year (a number), so no item has a side-car.
func benchIndex(n, dims int) core.IndexData {
	r := rand.New(rand.NewPCG(20260524, 15))
	d := core.IndexData{
		Version:        1,
		MetadataConfig: core.MetadataConfig{Indexed: []string{"category", "year"}},
		Items:          make([]core.IndexItem, n),
	}
	arena := make([]float32, n*dims)
	for i := range d.Items {
		v := arena[i*dims : (i+1)*dims : (i+1)*dims]
		var sum float64
		for j := range v {
			x := r.NormFloat64()
			v[j] = float32(x)
			sum += x * x
		}
		scale := 1 / math.Sqrt(sum)
		var norm float64
		for j := range v {
			v[j] = float32(float64(v[j]) * scale)
			norm += float64(v[j]) * float64(v[j])
		}
		d.Items[i] = core.IndexItem{
			ID: fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x",
				r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, r.Uint32()&0xfff, r.Uint64()&0xffffffffffff),
			Metadata: core.Metadata{
				"category": benchCategories[r.IntN(len(benchCategories))],
				"year":     float64(1990 + r.IntN(35)),
			},
			Vector: v,
			Norm:   math.Sqrt(norm),
		}
	}
	return d
}
