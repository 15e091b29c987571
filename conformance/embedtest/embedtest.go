package embedtest

import (
	"context"
	"testing"

	"github.com/foliovec/folio/conformance/internal/suite"
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

type testCase = suite.Case[core.EmbeddingsModel, Capabilities]

// rule makes a case of run, which gets the test's context.
func rule(name string, run func(ctx context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, caps Capabilities)) testCase {
	return testCase{Name: name, Run: func(t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, caps Capabilities) {
		run(t.Context(), t, newModel, caps)
	}}
}

// Run runs every case of the suite as a subtest of t. newModel is called once
// per subtest for a fresh model (twice where a case compares two).
func Run(t *testing.T, newModel func(t testing.TB) core.EmbeddingsModel, caps Capabilities) {
	t.Helper()
	suite.Run(t, cases(), newModel, caps)
}

// Check runs every case of the suite outside go test and returns nil, or an
// error joining every violation with the rule it broke. The testing.TB given
// to newModel records failures as violations; its ArtifactDir, Setenv and
// Chdir are not available. ctx is what the TB's Context returns.
func Check(ctx context.Context, newModel func(t testing.TB) core.EmbeddingsModel, caps Capabilities) error {
	return suite.Check(ctx, "embedtest", cases(), newModel, caps)
}
