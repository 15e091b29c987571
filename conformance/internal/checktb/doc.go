// Package checktb is the testing.TB that the conformance suites' Check
// functions hand to their cases outside go test.
//
// # Concurrency
//
// A TB may be used from several goroutines, like a *testing.T.
//
// # Errors
//
// Failures are recorded, not reported: Messages returns them.
package checktb
