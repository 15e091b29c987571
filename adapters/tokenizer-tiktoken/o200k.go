package tokenizertiktoken

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/base64"
	"fmt"
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

// loadRanks reads the embedded rank file: one "<base64 token> <rank>" per
// line.
func loadRanks() (map[string]int, error) {
	zr, err := gzip.NewReader(bytes.NewReader(o200kRanksGz))
	if err != nil {
		return nil, err
	}
	ranks := make(map[string]int, 200_000)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		tok, rank, ok := strings.Cut(line, " ")
		if !ok {
			return nil, fmt.Errorf("line %d: no rank", len(ranks)+1)
		}
		token, err := base64.StdEncoding.DecodeString(tok)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", len(ranks)+1, err)
		}
		r, err := strconv.Atoi(rank)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", len(ranks)+1, err)
		}
		ranks[string(token)] = r
	}
	return ranks, sc.Err()
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

// loadO200k builds the o200k_base encoder from the ranks embedded in the
// binary. It never touches the network or the disk: it does not go through
// tiktoken.GetEncoding, whose default loader downloads and caches the ranks,
// nor through tiktoken.SetBpeLoader, which would change that package's
// global state for every other user.
func loadO200k() (*tiktoken.Tiktoken, error) {
	ranks, err := loadRanks()
	if err != nil {
		return nil, fmt.Errorf("tokenizertiktoken: load embedded %s: %w", o200kRanksFile, err)
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
