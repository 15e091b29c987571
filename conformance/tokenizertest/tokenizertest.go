package tokenizertest

import (
	"context"
	"testing"

	"github.com/foliovec/folio/conformance/internal/suite"
	"github.com/foliovec/folio/core"
)

// Capabilities is what a tokenizer claims beyond the rules every tokenizer
// follows. The zero value claims nothing extra.
type Capabilities struct {
	// Lossless: Decode(Encode(s)) == s for every valid UTF-8 s, and
	// Encode("") has no tokens. Byte-level BPE tokenizers (o200k_base) are
	// lossless; lower-casing or WordPiece tokenizers are not.
	Lossless bool
}

type testCase = suite.Case[core.Tokenizer, Capabilities]

// Run runs every case of the suite as a subtest of t. newTokenizer is called
// once per subtest for a fresh tokenizer (twice where a case compares two).
func Run(t *testing.T, newTokenizer func(t testing.TB) core.Tokenizer, caps Capabilities) {
	t.Helper()
	suite.Run(t, cases(), newTokenizer, caps)
}

// Check runs every case of the suite outside go test and returns nil, or an
// error joining every violation with the rule it broke. The testing.TB given
// to newTokenizer records failures as violations; its ArtifactDir, Setenv
// and Chdir are not available. ctx is what the TB's Context returns.
func Check(ctx context.Context, newTokenizer func(t testing.TB) core.Tokenizer, caps Capabilities) error {
	return suite.Check(ctx, "tokenizertest", cases(), newTokenizer, caps)
}
