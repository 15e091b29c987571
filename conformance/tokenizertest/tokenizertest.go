package tokenizertest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/foliovec/folio/conformance/internal/checktb"
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

type testCase struct {
	name string
	run  func(t testing.TB, newTokenizer func(testing.TB) core.Tokenizer, caps Capabilities)
}

// Run runs every case of the suite as a subtest of t. newTokenizer is called
// once per subtest for a fresh tokenizer.
func Run(t *testing.T, newTokenizer func(t testing.TB) core.Tokenizer, caps Capabilities) {
	t.Helper()
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, newTokenizer, caps)
		})
	}
}

// Check runs every case of the suite outside go test and returns nil, or an
// error joining every violation with the rule it broke. The testing.TB given
// to newTokenizer records failures as violations; its ArtifactDir, Setenv
// and Chdir are not available. ctx is what the TB's Context returns.
func Check(ctx context.Context, newTokenizer func(t testing.TB) core.Tokenizer, caps Capabilities) error {
	var errs []error
	for _, c := range cases() {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		tb := checktb.New(ctx, c.name, "tokenizertest-")
		tb.Run(func(t testing.TB) { c.run(t, newTokenizer, caps) })
		msgs := tb.Messages()
		for _, msg := range msgs {
			errs = append(errs, fmt.Errorf("tokenizertest: %s: %s", c.name, msg))
		}
		if tb.Failed() && len(msgs) == 0 {
			errs = append(errs, fmt.Errorf("tokenizertest: %s: failed", c.name))
		}
	}
	return errors.Join(errs...)
}
