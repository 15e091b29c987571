// Package suite is the loop every conformance suite runs its cases through,
// under go test (Run) and outside it (Check), so the suites share one shape:
// cases on testing.TB, a fresh adapter from the caller's constructor, typed
// capabilities, panics reported as violations.
//
// # Concurrency
//
// Run and Check run the cases one after another; a case may start goroutines
// of its own and report from them.
//
// # Errors
//
// Check returns the errors.Join of every violation, each as
// "<suite>: <case>: <message>", and stops early with ctx's error when ctx is
// done.
package suite
