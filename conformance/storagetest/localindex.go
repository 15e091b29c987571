package storagetest

import (
	"github.com/foliovec/folio/conformance/internal/indexcheck"
	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
)

func localIndexCases() []rule {
	return []rule{
		{name: "a LocalIndex over the storage keeps its items, side-cars and query results across reopens", run: localIndex},
	}
}

// localIndex drives the storage through *core.LocalIndex with the reference
// codec, reopening through Harness.Reopen where the storage persists.
func localIndex(e *env) {
	reopen := func() core.FileStorage { return e.s }
	if e.caps.Persistent && e.reopen != nil {
		reopen = e.reopen
	}
	indexcheck.Exercise(e.t, e.s, reopen, e.p("idx"), reference.Codec{})
}
