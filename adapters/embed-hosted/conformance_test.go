package embedhosted

import (
	"testing"

	"github.com/foliovec/folio/conformance/embedtest"
	"github.com/foliovec/folio/core"
)

// TestConformance runs the EmbeddingsModel conformance suite against each
// variant, each talking to its own fake API server on 127.0.0.1. The fake
// servers embed deterministically, with unit-length vectors, and list the
// items of a response in reverse index order, so the suite's order checks
// exercise the client's sorting.
func TestConformance(t *testing.T) {
	for _, v := range allVariants() {
		t.Run(string(v), func(t *testing.T) {
			embedtest.Run(t, func(t testing.TB) core.EmbeddingsModel {
				return newFakeAPI(t, v).client(nil)
			}, embedtest.Capabilities{
				Deterministic: true,
				Normalized:    true,
				Dimensions:    fakeDimensions,
			})
		})
	}
}

// TestConformanceWithDimensions runs the suite with Dimensions set, which
// the fake servers honour.
func TestConformanceWithDimensions(t *testing.T) {
	embedtest.Run(t, func(t testing.TB) core.EmbeddingsModel {
		return newFakeAPI(t, VariantHosted).client(func(o *Options) { o.Dimensions = 5 })
	}, embedtest.Capabilities{Deterministic: true, Normalized: true, Dimensions: 5})
}
