// Package embedtest is the conformance suite for [core.EmbeddingsModel].
//
// Every embeddings adapter runs it from its tests:
//
//	func TestConformance(t *testing.T) {
//		embedtest.Run(t, func(t testing.TB) core.EmbeddingsModel { return mymodel.New() },
//			embedtest.Capabilities{Deterministic: true, Normalized: true})
//	}
//
// and [Check] runs the same cases outside go test, joining every violation
// with the rule it broke. [CheckResponse] checks the contract of one call, for
// adapters' own failure tests (a server answering 500, a rate limit).
//
// The rules every model must follow, whatever it claims in [Capabilities]:
//
//   - MaxTokens is positive.
//   - A successful call has Status success, a nil error, one finite, non-empty
//     vector per input, and one dimension for every vector of every call.
//   - An empty input list succeeds with no vectors (and should make no remote
//     call).
//   - An empty string is embedded like any other input or, unless the model
//     claims EmbedsEmptyString, fails with Status error.
//   - A failed call returns a *core.EmbeddingsError whose Status is error,
//     rate_limited or cancelled; the response carries the same Status and
//     Message and no vectors.
//   - A context cancelled before the call, or whose deadline has passed, fails
//     the call with Status cancelled, and errors.Is matches both
//     core.ErrEmbeddingsCancelled and the context's error (context.Canceled or
//     context.DeadlineExceeded).
//   - A context cancelled during a call ends it either with a complete success
//     or with Status cancelled; never another failure, never a partial result.
//   - Concurrent calls on one model are safe (run the suite with -race).
//
// Models that claim Deterministic also give, within Tolerance, the same
// vector for an input on every call and whether it is embedded alone or in a
// batch, so the order of a batch's vectors is checked against its inputs.
//
// # Concurrency
//
// [Run] and [Check] run their cases one after another; the concurrency case
// calls one model from several goroutines. The functions of this package are
// safe to call from several goroutines at once.
//
// # Errors
//
// [Check] and [CheckResponse] return nil when nothing was violated, else an
// error joining (with [errors.Join]) one error per violation, each prefixed
// with the rule it broke.
package embedtest
