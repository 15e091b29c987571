package tokenizertiktoken

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	tiktoken "github.com/pkoukk/tiktoken-go"
)

// o200kRanksFile is the name of the embedded o200k_base rank file.
const o200kRanksFile = "o200k_base.tiktoken"

// o200kRanksGz is OpenAI's o200k_base.tiktoken (sha256 446a9538…1a2d),
// gzipped: the only encoding Folio uses, so the other three never weigh on
// a binary (a browser's .wasm above all).
//
//go:embed o200k_base.tiktoken.gz
var o200kRanksGz []byte

// o200kSHA256 is the SHA-256 of OpenAI's o200k_base.tiktoken, which a
// rank file given to NewFromRankFile must match.
const o200kSHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

// ErrRankFile is the error of a rank file given to NewFromRankFile that is
// not OpenAI's o200k_base.tiktoken, gzipped or not.
var ErrRankFile = errors.New("not the o200k_base rank file")

// parseRanks reads a rank file, gzipped or not: one "<base64 token>
// <rank>" per line. check verifies its SHA-256 first.
func parseRanks(raw []byte, check bool) (map[string]int, error) {
	if len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrRankFile, err)
		}
		if raw, err = io.ReadAll(io.LimitReader(zr, 16<<20)); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrRankFile, err)
		}
	}
	if check {
		if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != o200kSHA256 {
			return nil, fmt.Errorf("%w: sha256 %x", ErrRankFile, sum[:4])
		}
	}
	ranks := make(map[string]int, 200_000)
	for n, line := range bytes.Split(raw, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		tok, rank, ok := bytes.Cut(line, []byte(" "))
		if !ok {
			return nil, fmt.Errorf("line %d: no rank", n+1)
		}
		token, err := base64.StdEncoding.DecodeString(string(tok))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		r, err := strconv.Atoi(string(rank))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		ranks[string(token)] = r
	}
	return ranks, nil
}

// jsSpace is the whitespace of JavaScript's \s, which Vectra's tokenizer
// (gpt-tokenizer) uses. It differs from .NET's \s (regexp2's) in U+FEFF,
// which JavaScript counts as whitespace, and U+0085, which it does not.
const jsSpace = `\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`

// o200kPattern is o200k_base's pre-tokenization pattern, as in OpenAI's
// tiktoken (tiktoken_ext/openai_public.py), with \s and \S spelled as
// JavaScript reads them, so text splits into the pieces Vectra's does.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|\p{N}{1,3}` +
	`| ?[^` + jsSpace + `\p{L}\p{N}]+[\r\n/]*` +
	`|[` + jsSpace + `]*[\r\n]+` +
	`|[` + jsSpace + `]+(?![^` + jsSpace + `])` +
	`|[` + jsSpace + `]+`

// bom is the UTF-8 byte order mark. Vectra's tokenizer cannot use the nine
// o200k_base tokens that start with it (it reads its vocabulary through a
// UTF-8 decoder, which drops a leading BOM), so Folio leaves them out too:
// text with U+FEFF gets Vectra's token ids, not OpenAI's.
const bom = "\xef\xbb\xbf"

// buildO200k builds the o200k_base encoder from a rank file (see
// parseRanks). It never touches the network or the disk: it does not go
// through tiktoken.GetEncoding, whose default loader downloads and caches
// the ranks, nor through tiktoken.SetBpeLoader, which would change that
// package's global state for every other user.
func buildO200k(raw []byte, check bool) (*tiktoken.Tiktoken, error) {
	ranks, err := parseRanks(raw, check)
	if err != nil {
		return nil, fmt.Errorf("tokenizertiktoken: load %s: %w", o200kRanksFile, err)
	}
	for token := range ranks {
		if strings.HasPrefix(token, bom) {
			delete(ranks, token)
		}
	}
	special := map[string]int{"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
	bpe, err := tiktoken.NewCoreBPE(ranks, special, o200kPattern)
	if err != nil {
		return nil, fmt.Errorf("tokenizertiktoken: build o200k_base: %w", err)
	}
	enc := &tiktoken.Encoding{Name: "o200k_base", PatStr: o200kPattern, MergeableRanks: ranks, SpecialTokens: special}
	specialSet := make(map[string]any, len(special))
	for k := range special {
		specialSet[k] = true
	}
	return tiktoken.NewTiktoken(bpe, enc, specialSet), nil
}
