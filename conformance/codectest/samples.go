package codectest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/foliovec/folio/core"
)

// trickyStrings are ids, keys and values every codec must carry unchanged.
var trickyStrings = []string{
	"plain",
	"with space",
	`quote " and backslash \`,
	"tab\tnewline\ncarriage\rreturn",
	"nul\x00and\x01control\x1f",
	"line\u2028separator\u2029",
	"html <b>&amp;</b>",
	"café naïve",
	"日本語のテキスト",
	"emoji 👩‍👩‍👧 🚀",
	"rtl עברית",
	"combining e\u0301",
	"\u007f del and \u0080 c1",
	"\ufeffbom",
	"/slash/and.dots",
}

// norm is the Euclidean length of v.
func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// randomVector returns n float32 components of varied magnitude and sign.
func randomVector(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		switch r.IntN(10) {
		case 0:
			v[i] = 0
		case 1:
			v[i] = float32(r.NormFloat64() * 1e-8)
		case 2:
			v[i] = float32(r.NormFloat64() * 1000)
		default:
			v[i] = float32(r.NormFloat64())
		}
	}
	return v
}

// sampleIndex is a small index with every field set on some item: a
// metadata file, indexed keys, strings, numbers and bools.
func sampleIndex() core.IndexData {
	r := rand.New(rand.NewPCG(7, 11))
	d := core.IndexData{
		Version:        1,
		MetadataConfig: core.MetadataConfig{Indexed: []string{"category", "year"}},
	}
	categories := []string{"news", "sports", "tech"}
	for i := range 3 {
		v := randomVector(r, 4)
		it := core.IndexItem{
			ID:       fmt.Sprintf("item-%03d", i),
			Metadata: core.Metadata{"category": categories[i], "year": float64(2000 + i), "draft": i%2 == 0},
			Vector:   v,
			Norm:     norm(v),
		}
		if i == 1 {
			it.MetadataFile = "00000001-0000-4000-8000-000000000002.json"
		}
		d.Items = append(d.Items, it)
	}
	return d
}

// sampleCatalog is a small catalog with every map set.
func sampleCatalog() core.DocumentCatalog {
	return core.DocumentCatalog{
		Version: 1,
		Count:   2,
		URIToID: map[string]string{
			"docs/intro.md": "00000002-0000-4000-8000-000000000001",
			"notes/ü.txt":   "00000002-0000-4000-8000-000000000012",
		},
		IDToURI: map[string]string{
			"00000002-0000-4000-8000-000000000001": "docs/intro.md",
			"00000002-0000-4000-8000-000000000012": "notes/ü.txt",
		},
		URIToHash: map[string]string{
			"docs/intro.md": "48569d6434cc85d91ad9c5d580e20f527369cf8580dece4488ccef1bd966693e",
			"notes/ü.txt":   "ec6cbc36773d0cf64074a43595f373bba778bf6c38ca4999de153428a8454faf",
		},
	}
}

// sampleMetadata is a small metadata object with a string, a number, a
// bool and zero values.
func sampleMetadata() core.Metadata {
	return core.Metadata{
		"category": "news",
		"year":     2000.0,
		"featured": true,
		"title":    "",
		"score":    0.0,
		"draft":    false,
		"text":     "vector cosine score search client vector n0",
	}
}
