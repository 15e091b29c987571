package embedtest

import (
	"errors"
	"fmt"
	"math"

	"github.com/foliovec/folio/core"
)

// CheckResponse checks what one CreateEmbeddings call on inputs returned
// against the rules every call follows, successful or not, and returns nil
// or an error joining every violation:
//
//   - err == nil: Status is success and Output holds one finite, non-empty
//     vector per input, all of one length.
//   - err != nil: err is (or wraps) a *core.EmbeddingsError whose Status is
//     error, rate_limited or cancelled; errors.Is matches the sentinel of
//     that Status; the response carries the same Status and Message, and no
//     vectors.
func CheckResponse(inputs []string, resp core.EmbeddingsResponse, err error) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}
	if err == nil {
		if resp.Status != core.EmbeddingsSuccess {
			bad("a call without error has Status %q, want %q", resp.Status, core.EmbeddingsSuccess)
		}
		if len(resp.Output) != len(inputs) {
			bad("got %d vectors for %d inputs", len(resp.Output), len(inputs))
		}
		dim := -1
		for i, v := range resp.Output {
			if len(v) == 0 {
				bad("vector %d is empty", i)
				continue
			}
			if dim == -1 {
				dim = len(v)
			} else if len(v) != dim {
				bad("vector %d has %d dimensions, vector 0 has %d", i, len(v), dim)
			}
			for j, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					bad("vector %d component %d is %v", i, j, x)
					break
				}
			}
		}
		return errors.Join(errs...)
	}

	var ee *core.EmbeddingsError
	if !errors.As(err, &ee) {
		bad("error %q (%T) is not a *core.EmbeddingsError", err, err)
		return errors.Join(errs...)
	}
	sentinel := map[core.EmbeddingsStatus]error{
		core.EmbeddingsFailed:      core.ErrEmbeddingsFailed,
		core.EmbeddingsRateLimited: core.ErrRateLimited,
		core.EmbeddingsCancelled:   core.ErrEmbeddingsCancelled,
	}[ee.Status]
	if sentinel == nil {
		bad("error Status %q is not error, rate_limited or cancelled", ee.Status)
	} else if !errors.Is(err, sentinel) {
		bad("errors.Is(err, %v) is false for Status %q", sentinel, ee.Status)
	}
	if resp.Status != ee.Status {
		bad("response Status %q differs from the error's Status %q", resp.Status, ee.Status)
	}
	if resp.Message != ee.Message {
		bad("response Message %q differs from the error's Message %q", resp.Message, ee.Message)
	}
	if len(resp.Output) != 0 {
		bad("a failed call returned %d vectors", len(resp.Output))
	}
	return errors.Join(errs...)
}
