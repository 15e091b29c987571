package fetchtest

import (
	"context"
	"testing"

	"github.com/foliovec/folio/conformance/internal/suite"
	"github.com/foliovec/folio/core"
)

// Harness is one fresh fetcher and the source it reads from.
type Harness struct {
	// Fetcher is the fetcher under test.
	Fetcher core.TextFetcher
	// Publish puts documents with the given texts where Fetcher reads them
	// and returns the uri whose Fetch reports them, with the documents it
	// must report, in the order it must report them when the fetcher
	// claims Ordered. It is given one text unless the fetcher claims
	// Collections. Texts may hold invalid UTF-8 (raw bytes to publish as
	// they are). Publish reports its own failures with t.Fatal.
	Publish func(t testing.TB, texts []string) (uri string, want []Document)
	// Unreadable returns uris whose Fetch must fail with an error (a page
	// answering 404, a file that cannot be read). nil skips that rule.
	Unreadable func(t testing.TB) []string
}

// Document is one document a fetcher reports.
type Document struct {
	URI     string
	Text    string
	DocType string
}

// Capabilities is what a fetcher claims beyond the rules every fetcher
// follows. The zero value claims nothing extra.
type Capabilities struct {
	// Collections: one uri can hold several documents (a folder) that
	// Fetch walks, calling back once per document.
	Collections bool
	// Ordered: a collection's documents are reported in the order Publish
	// returns them.
	Ordered bool
}

type testCase = suite.Case[Harness, Capabilities]

// rule makes a case of run, which gets the test's context.
func rule(name string, run func(ctx context.Context, t testing.TB, newHarness func(testing.TB) Harness, caps Capabilities)) testCase {
	return testCase{Name: name, Run: func(t testing.TB, newHarness func(testing.TB) Harness, caps Capabilities) {
		run(t.Context(), t, newHarness, caps)
	}}
}

// Run runs every case of the suite as a subtest of t. newHarness is called
// once per subtest for a fresh fetcher and source.
func Run(t *testing.T, newHarness func(t testing.TB) Harness, caps Capabilities) {
	t.Helper()
	suite.Run(t, cases(), newHarness, caps)
}

// Check runs every case of the suite outside go test and returns nil, or an
// error joining every violation with the rule it broke. The testing.TB
// given to newHarness and Publish records failures as violations; its
// ArtifactDir, Setenv and Chdir are not available, and its TempDir is
// removed when the case ends. ctx is what the TB's Context returns.
func Check(ctx context.Context, newHarness func(t testing.TB) Harness, caps Capabilities) error {
	return suite.Check(ctx, "fetchtest", cases(), newHarness, caps)
}
