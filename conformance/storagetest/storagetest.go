package storagetest

import (
	"context"
	"testing"

	"github.com/foliovec/folio/conformance/internal/suite"
	"github.com/foliovec/folio/core"
)

// Harness is one storage under test, made fresh for every case.
type Harness struct {
	// Storage is the storage under test.
	Storage core.FileStorage
	// Root is an existing, empty folder of Storage under which the case
	// works, in the storage's own path syntax: "" for its top level, or for
	// example an absolute directory for a storage over the whole file system.
	Root string
	// Reopen returns a second storage value over the same data, as a new
	// process would open it. Required when Capabilities.Persistent is claimed;
	// otherwise unused.
	Reopen func() core.FileStorage
}

// Capabilities says what a storage claims beyond the rules every storage
// keeps. The zero value claims nothing; cases that need a capability are then
// skipped (reported as skips by [Run], left out by [Check]).
type Capabilities struct {
	// AtomicReplace: while UpsertFile replaces a file, concurrent readers of
	// it see the whole old content or the whole new one, never a mix, a prefix
	// or a missing file.
	AtomicReplace bool
	// Persistent: what is written outlives the storage value; a storage
	// returned by Harness.Reopen sees it.
	Persistent bool
	// Confined: paths that leave Root ("..", absolute paths) are refused with
	// an error wrapping core.ErrInvalidArgument, by every method.
	Confined bool
	// ColdFileSize is the length of the file the suite writes after a
	// core.ColdFileHint (1 MiB and 1,234 bytes when 0): a storage that
	// writes a cold file differently past some size sets one beyond it.
	ColdFileSize int
}

// Run runs every case as a subtest of t, each with a fresh harness from
// newHarness, and reports each violation with t.Error. It logs which of
// core's optional capabilities the storage implements (OptionalOf). Cases that need a
// capability caps does not claim, or core.GroupWriter where the storage does
// not implement it, are skipped.
func Run(t *testing.T, newHarness func(t testing.TB) Harness, caps Capabilities) {
	t.Helper()
	if h := newHarness(t); h.Storage != nil {
		t.Logf("the storage implements %v of core's optional capabilities", OptionalOf(h.Storage).Names())
	}
	suite.Run(t, cases(), newHarness, caps)
}

// Check runs every case that caps allows outside go test, each with a fresh
// harness from newHarness, and returns nil when the storage keeps every
// rule, or the [errors.Join] of every violation, each prefixed with the rule
// (case name) it broke. The testing.TB given to newHarness records failures
// as violations and offers TempDir and Cleanup; Setenv, Chdir and
// ArtifactDir are not available and panic.
func Check(ctx context.Context, newHarness func(t testing.TB) Harness, caps Capabilities) error {
	return suite.Check(ctx, "storagetest", cases(), newHarness, caps)
}

// rule is one case as the case files list it; its name states the rule.
type rule struct {
	name string
	// claimed, when set, reports whether caps claims what the rule needs;
	// the rule is skipped for storages that do not.
	claimed func(caps Capabilities) bool
	run     func(e *env)
}

// cases lists every rule, in the order they run.
func cases() []suite.Case[Harness, Capabilities] {
	var all []rule
	all = append(all, fileCases()...)
	all = append(all, folderCases()...)
	all = append(all, listingCases()...)
	all = append(all, pathCases()...)
	all = append(all, cancellationCases()...)
	all = append(all, concurrencyCases()...)
	all = append(all, capabilityCases()...)
	all = append(all, groupWriterCases()...)
	all = append(all, folderLockerCases()...)
	all = append(all, fileVersionerCases()...)
	all = append(all, fileStreamerCases()...)
	all = append(all, fileMapperCases()...)
	all = append(all, fileRangeReaderCases()...)
	all = append(all, fileStreamWriterCases()...)
	all = append(all, tempFileRemoverCases()...)
	all = append(all, localIndexCases()...)
	out := make([]suite.Case[Harness, Capabilities], len(all))
	for i, r := range all {
		out[i] = suite.Case[Harness, Capabilities]{Name: r.name, Run: func(t testing.TB, newHarness func(testing.TB) Harness, caps Capabilities) {
			if r.claimed != nil && !r.claimed(caps) {
				t.Skip("the storage does not claim what this rule needs")
			}
			h := newHarness(t)
			if h.Storage == nil {
				t.Fatal("the harness has no storage")
			}
			r.run(&env{t: t, ctx: t.Context(), s: h.Storage, root: h.Root, reopen: h.Reopen, caps: caps, opt: OptionalOf(h.Storage)})
		}}
	}
	return out
}
