package codectest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/foliovec/folio/core"
)

func concurrencyCases() []rule {
	return []rule{
		{"codec is safe for concurrent use", checkConcurrent},
	}
}

func checkConcurrent(t testing.TB, c core.IndexCodec, caps Capabilities) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			label := fmt.Sprintf("goroutine %d", g)
			for range 10 {
				roundTripIndex(t, c, sampleIndex(), indexHow(caps), label)
				roundTripCatalog(t, c, sampleCatalog(), indexHow(caps), label)
				roundTripMetadata(t, c, sampleMetadata(), false, label)
				if t.Failed() {
					return // a handful of violations, not forty
				}
			}
		})
	}
	wg.Wait()
}
