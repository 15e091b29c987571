package embedtest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/foliovec/folio/conformance/internal/checktb"
	"github.com/foliovec/folio/core"
)

// Capabilities is what a model claims beyond the rules every model follows.
// The zero value claims nothing extra.
type Capabilities struct {
	// Deterministic: an input gives the same vector (within Tolerance) on
	// every call, whether embedded alone or in a batch. The suite then checks
	// that a batch's vectors are those of its inputs, in order.
	Deterministic bool
	// Tolerance is the largest absolute difference per component between two
	// vectors that should be equal (batched float math may differ slightly
	// from unbatched). 0 means exactly equal.
	Tolerance float64
	// Normalized: every vector has Euclidean length 1 (within 1e-4).
	Normalized bool
	// Dimensions, when > 0, is the length every vector must have.
	Dimensions int
	// EmbedsEmptyString: an empty string input succeeds. Without it, an empty
	// string may also fail with Status error.
	EmbedsEmptyString bool
}

// unitTolerance is how far from 1 the length of a Normalized vector may be.
const unitTolerance = 1e-4

type testCase struct {
	name string
	run  func(ctx context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, caps Capabilities)
}

// Run runs every case of the suite as a subtest of t. newModel is called once
// per subtest for a fresh model.
func Run(t *testing.T, newModel func(t testing.TB) core.EmbeddingsModel, caps Capabilities) {
	t.Helper()
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			c.run(t.Context(), t, newModel, caps)
		})
	}
}

// Check runs every case of the suite outside go test and returns nil, or an
// error joining every violation with the rule it broke. The testing.TB given
// to newModel records failures as violations; its ArtifactDir, Setenv and
// Chdir are not available.
func Check(ctx context.Context, newModel func(t testing.TB) core.EmbeddingsModel, caps Capabilities) error {
	var errs []error
	for _, c := range cases() {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		tb := checktb.New(ctx, c.name, "embedtest-")
		tb.Run(func(t testing.TB) { c.run(ctx, t, newModel, caps) })
		msgs := tb.Messages()
		for _, msg := range msgs {
			errs = append(errs, fmt.Errorf("embedtest: %s: %s", c.name, msg))
		}
		if tb.Failed() && len(msgs) == 0 {
			errs = append(errs, fmt.Errorf("embedtest: %s: failed", c.name))
		}
	}
	return errors.Join(errs...)
}
