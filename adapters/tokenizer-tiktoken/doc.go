// Package tokenizertiktoken is Folio's default tokenizer: OpenAI's o200k_base
// byte-pair encoding (the GPT-4o family), the encoding Vectra 0.15 uses, so
// documents split into the same chunks in both.
//
// The BPE ranks ship inside the binary (OpenAI's o200k_base.tiktoken,
// gzipped): nothing is downloaded or read from disk at run time, and
// TIKTOKEN_CACHE_DIR is never consulted. [NewFromRankFile] takes the same
// file from the program instead, leaving the 1.7 MB out of a binary that
// never calls [New] (Folio's browser package does this). A tokenizer parses its ranks once, on first use; share one
// *DefaultTokenizer rather than making one per call, since each holds its own
// copy of the ranks (tens of megabytes).
//
// Token ids are those of Vectra's tokenizer (gpt-tokenizer 3.4.0), checked
// against a golden file it wrote (testdata/o200k_golden.json). They are
// OpenAI's o200k_base ids but for two details where Vectra's tokenizer
// differs and Folio follows it: the pre-tokenizer's \s is JavaScript's
// (U+FEFF is whitespace, U+0085 is not), and the nine tokens that start with
// a UTF-8 byte order mark are never produced.
//
// Text that looks like a special token, such as "<|endoftext|>", is encoded
// as ordinary text. (Vectra throws on it; Folio does not.)
//
// # Concurrency
//
// A *DefaultTokenizer is safe for concurrent use, including its first use,
// which loads the ranks exactly once.
//
// # Errors
//
// Encode and Decode return no errors. Decode skips ids that are not in the
// vocabulary. Loading the embedded ranks cannot fail in a correctly built
// binary; if it does, the first Encode or Decode panics with the cause. A
// rank file given to NewFromRankFile that cannot be read or is not
// o200k_base's (ErrRankFile) is returned by EncodeContext, and makes Encode
// and Decode panic.
package tokenizertiktoken
