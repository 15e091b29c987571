package codecjson_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// benchIndex is the benchmark workload, built when a benchmark runs:
// 100,000 items of 384 dimensions (unit vectors, as embeddings models
// return them) with two indexed metadata fields, a category string of 10
// values and a year.
func benchIndex() core.IndexData {
	const items, dims = 100_000, 384
	r := rand.New(rand.NewPCG(2024, 384))
	d := core.IndexData{Version: 1, MetadataConfig: core.MetadataConfig{Indexed: []string{"category", "year"}}}
	d.Items = make([]core.IndexItem, items)
	for i := range d.Items {
		v := testkit.UnitVector(r, dims)
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		d.Items[i] = core.IndexItem{
			ID:       fmt.Sprintf("00000001-0000-4000-8000-%012x", i),
			Metadata: core.Metadata{"category": fmt.Sprintf("category-%d", i%10), "year": float64(1990 + i%35)},
			Vector:   v,
			Norm:     math.Sqrt(norm),
		}
	}
	return d
}

// BenchmarkEncodeIndex: SerializeIndex of the 100k × 384 index.
// file-bytes is the size of the file written.
func BenchmarkEncodeIndex(b *testing.B) {
	d := benchIndex()
	c := codecjson.New()
	out, err := c.SerializeIndex(d)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.SerializeIndex(d); err != nil {
			b.Fatal(err)
		}
	}
	// After the loop: b.Loop's first call deletes metrics reported before it.
	b.ReportMetric(float64(len(out)), "file-bytes")
}

// BenchmarkDecodeIndex: DeserializeIndex of the file BenchmarkEncodeIndex
// writes.
func BenchmarkDecodeIndex(b *testing.B) {
	c := codecjson.New()
	src, err := c.SerializeIndex(benchIndex())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.DeserializeIndex(src); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(src)), "file-bytes")
}
