package storagetest

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/foliovec/folio/conformance/internal/checktb"
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
}

// claims reports whether caps claims the named capability; "" is the rules
// every storage keeps.
func (caps Capabilities) claims(capability string) bool {
	switch capability {
	case "":
		return true
	case "AtomicReplace":
		return caps.AtomicReplace
	case "Persistent":
		return caps.Persistent
	case "Confined":
		return caps.Confined
	}
	panic("storagetest: unknown capability " + capability)
}

// Run runs every case as a subtest of t, each with a fresh harness from
// newHarness, and reports each violation with t.Error. Cases that need a
// capability caps does not claim are skipped.
func Run(t *testing.T, newHarness func(t testing.TB) Harness, caps Capabilities) {
	t.Helper()
	for _, tc := range cases() {
		t.Run(tc.name, func(t *testing.T) {
			if tc.requires != groupWriter && !caps.claims(tc.requires) {
				t.Skipf("the storage does not claim %s", tc.requires)
			}
			h := newHarness(t)
			if _, ok := h.Storage.(core.GroupWriter); tc.requires == groupWriter && !ok {
				t.Skipf("the storage does not implement %s", groupWriter)
			}
			for _, err := range runCase(t.Context(), tc, h) {
				t.Error(err)
			}
		})
	}
}

// Check runs every case that caps allows outside go test, each with a fresh
// harness from newHarness, and returns nil when the storage keeps every
// rule, or the [errors.Join] of every violation, each prefixed with the rule
// (case name) it broke. The testing.TB given to newHarness records failures
// as violations and offers TempDir and Cleanup; Setenv, Chdir and
// ArtifactDir are not available and panic.
func Check(ctx context.Context, newHarness func(t testing.TB) Harness, caps Capabilities) error {
	var errs []error
	for _, tc := range cases() {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		if tc.requires != groupWriter && !caps.claims(tc.requires) {
			continue
		}
		tb := checktb.New(ctx, tc.name, "storagetest-")
		var caseErrs []error
		tb.Run(func(t testing.TB) {
			h := newHarness(t)
			if _, ok := h.Storage.(core.GroupWriter); tc.requires == groupWriter && !ok {
				return
			}
			caseErrs = runCase(ctx, tc, h)
		})
		msgs := tb.Messages()
		for _, msg := range msgs {
			errs = append(errs, fmt.Errorf("storagetest: %s: harness: %s", tc.name, msg))
		}
		if tb.Failed() && len(msgs) == 0 {
			errs = append(errs, fmt.Errorf("storagetest: %s: harness failed", tc.name))
		}
		for _, err := range caseErrs {
			errs = append(errs, fmt.Errorf("storagetest: %s: %w", tc.name, err))
		}
	}
	return errors.Join(errs...)
}

// testCase is one rule; its name states it.
type testCase struct {
	name     string
	requires string // a Capabilities field name, or "" for every storage
	run      func(e *env)
}

// cases lists every rule, in the order they run.
func cases() []testCase {
	var all []testCase
	all = append(all, fileCases()...)
	all = append(all, folderCases()...)
	all = append(all, listingCases()...)
	all = append(all, pathCases()...)
	all = append(all, cancellationCases()...)
	all = append(all, concurrencyCases()...)
	all = append(all, capabilityCases()...)
	all = append(all, groupWriterCases()...)
	return all
}

// runCase runs tc on h and returns its violations; a panic is one too.
func runCase(ctx context.Context, tc testCase, h Harness) (errs []error) {
	if h.Storage == nil {
		return []error{errors.New("the harness has no storage")}
	}
	if tc.requires == "Persistent" && h.Reopen == nil {
		return []error{errors.New("the storage claims Persistent but the harness has no Reopen")}
	}
	e := &env{ctx: ctx, s: h.Storage, root: h.Root, reopen: h.Reopen}
	defer func() {
		if p := recover(); p != nil {
			errs = append(e.errs, fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
		}
	}()
	tc.run(e)
	return e.errs
}
