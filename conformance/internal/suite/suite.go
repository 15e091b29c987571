package suite

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/foliovec/folio/conformance/internal/checktb"
)

// Case is one rule of a suite; its name states the rule. Run checks it on
// adapters made by newX (usually one, called once) and reports each
// violation with t.Error; it calls t.Skip when caps does not claim what the
// rule needs.
type Case[X, C any] struct {
	Name string
	Run  func(t testing.TB, newX func(testing.TB) X, caps C)
}

// Run runs every case as a subtest of t.
func Run[X, C any](t *testing.T, cases []Case[X, C], newX func(testing.TB) X, caps C) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			defer reportPanic(t)
			c.Run(t, newX, caps)
		})
	}
}

// Check runs every case outside go test and returns nil when none finds a
// violation, or the errors.Join of every violation, each prefixed with the
// suite's name and the case's. Skipped cases are left out. The testing.TB
// the cases and newX get records failures; see [checktb.TB] for what it
// offers.
func Check[X, C any](ctx context.Context, name string, cases []Case[X, C], newX func(testing.TB) X, caps C) error {
	var errs []error
	for _, c := range cases {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		tb := checktb.New(ctx, c.Name, name+"-")
		tb.Run(func(t testing.TB) {
			defer reportPanic(t)
			c.Run(t, newX, caps)
		})
		msgs := tb.Messages()
		for _, msg := range msgs {
			errs = append(errs, fmt.Errorf("%s: %s: %s", name, c.Name, msg))
		}
		if tb.Failed() && len(msgs) == 0 {
			errs = append(errs, fmt.Errorf("%s: %s: failed", name, c.Name))
		}
	}
	return errors.Join(errs...)
}

// reportPanic turns a panic in a case (usually the adapter's) into a
// violation with its stack, so one bad case does not end the run.
func reportPanic(t testing.TB) {
	if p := recover(); p != nil {
		t.Errorf("panic: %v\n%s", p, debug.Stack())
	}
}
