package codectest

import (
	"testing"

	"github.com/foliovec/folio/conformance/internal/indexcheck"
	"github.com/foliovec/folio/core"
)

func localIndexCases() []rule {
	return []rule{
		{"a LocalIndex over the codec keeps its items, side-cars and query results across reopens", checkLocalIndex},
	}
}

// checkLocalIndex drives the codec through *core.LocalIndex over the
// reference in-memory storage.
func checkLocalIndex(t testing.TB, c core.IndexCodec, _ Capabilities) {
	s := core.NewMemoryStorage()
	indexcheck.Exercise(t, s, func() core.FileStorage { return s }, "idx", c)
}
