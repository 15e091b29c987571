// Package fetchtest is the conformance suite for [core.TextFetcher].
//
// Every fetcher adapter runs it from its tests, giving a fresh [Harness]
// per case: the fetcher, and a way to publish documents where it reads
// them (files in a temporary folder, pages on a test server):
//
//	func TestConformance(t *testing.T) {
//		fetchtest.Run(t, func(t testing.TB) fetchtest.Harness {
//			return fetchtest.Harness{Fetcher: myfetch.New(), Publish: publish, Unreadable: unreadable}
//		}, fetchtest.Capabilities{Collections: true})
//	}
//
// and [Check] runs the same cases outside go test, joining every violation
// with the rule it broke.
//
// The rules every fetcher must follow:
//
//   - Every published document is reported once, with the uri, text and
//     docType the harness expects, and Fetch returns true when every
//     callback returned true.
//   - Reported text is valid UTF-8: invalid bytes are replaced (with
//     U+FFFD), never passed through.
//   - A callback returning false stops the walk: no later callback, and
//     Fetch returns false with a nil error.
//   - A callback's error stops the walk and is returned (errors.Is finds
//     it).
//   - A context cancelled before Fetch fails it with the context's error
//     and no callback; cancelled during a walk, no later callback is made.
//   - The callback's context carries Fetch's context values.
//   - Unreadable input (the harness's Unreadable uris) is an error, never a
//     panic and never a callback.
//   - Concurrent calls on one fetcher are safe (run the suite with -race).
//
// # Concurrency
//
// [Run] and [Check] run their cases one after another; the concurrency case
// calls one fetcher from several goroutines. The functions of this package
// are safe to call from several goroutines at once.
//
// # Errors
//
// [Check] returns nil when nothing was violated, else an error joining
// (with [errors.Join]) one error per violation, each prefixed with the rule
// it broke.
package fetchtest
