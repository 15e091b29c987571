// Package tokenizertest is the conformance suite for [core.Tokenizer].
//
// Every tokenizer adapter runs it from its tests:
//
//	func TestConformance(t *testing.T) {
//		tokenizertest.Run(t, func(t testing.TB) core.Tokenizer { return mytok.New() },
//			tokenizertest.Capabilities{Lossless: true})
//	}
//
// and [Check] runs the same cases outside go test, joining every violation
// with the rule it broke.
//
// The rules every tokenizer follows, whatever it claims in [Capabilities]:
//
//   - Encode and Decode are deterministic, across calls and across
//     tokenizers made by the same constructor.
//   - Non-empty text gives at least one token; token ids are non-negative.
//   - Decode(nil) and Decode([]int{}) are "", and Decode(Encode("")) is "".
//   - Text that looks like a special token ("<|endoftext|>", "[CLS]") is
//     ordinary text: Encode never panics on it, nor on invalid UTF-8, and
//     Decode never panics on any prefix of an encoding.
//   - A lossless tokenizer (Capabilities.Lossless) gives Decode(Encode(s)) == s
//     for every valid UTF-8 s, and Encode("") has no tokens.
//   - A lossy tokenizer (lower-casing, WordPiece, added [CLS]/[SEP]) keeps at
//     least the ASCII letters, digits and punctuation of ASCII text in order:
//     Decode(Encode(s)) equals s once ASCII letters are lower-cased and
//     whitespace is removed from both.
//   - Concurrent use of one tokenizer is safe (run the suite with -race) and
//     gives the same tokens as sequential use.
//
// # Concurrency
//
// [Run] and [Check] run their cases one after another; the concurrency case
// calls one tokenizer from several goroutines. The functions of this package
// are safe to call from several goroutines at once.
//
// # Errors
//
// [Check] returns nil when nothing was violated, else an error joining (with
// [errors.Join]) one error per violation, each prefixed with the rule it
// broke. A panic in the tokenizer is a violation, not a crash, where the
// suite can recover it.
package tokenizertest
