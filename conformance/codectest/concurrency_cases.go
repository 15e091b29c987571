package codectest

import (
	"fmt"
	"sync"

	"github.com/foliovec/folio/core"
)

func concurrencyCases() []testCase {
	return []testCase{
		{"codec is safe for concurrent use", checkConcurrent},
	}
}

func checkConcurrent(c core.IndexCodec, caps Capabilities, r *report) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	for g := range 4 {
		wg.Go(func() {
			local := &report{}
			for range 10 {
				roundTripIndex(c, sampleIndex(), indexHow(caps), local, fmt.Sprintf("goroutine %d", g))
				roundTripCatalog(c, sampleCatalog(), indexHow(caps), local, fmt.Sprintf("goroutine %d", g))
				roundTripMetadata(c, sampleMetadata(), false, local, fmt.Sprintf("goroutine %d", g))
				if len(local.errs) > 0 {
					break
				}
			}
			mu.Lock()
			errs = append(errs, local.errs...)
			mu.Unlock()
		})
	}
	wg.Wait()
	r.errs = append(r.errs, errs...)
}
