package split

import (
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/foliovec/folio/core/jsvalue"
)

// Tokenizer counts and cuts tokens (core's Tokenizer port).
type Tokenizer interface {
	Encode(text string) []int
	Decode(tokens []int) string
}

// Config is a validated splitter configuration: ChunkSize at least 1,
// ChunkOverlap between 0 and ChunkSize, Separators not empty, a Tokenizer.
type Config struct {
	ChunkSize      int
	ChunkOverlap   int
	KeepSeparators bool
	Separators     []string
	Tokenizer      Tokenizer
	// Vectra merges pieces as Vectra 0.15 does: up to ChunkSize UTF-16
	// characters as well as tokens, never a piece without a letter or
	// digit, and no fragment is folded into a neighbour. Otherwise pieces
	// merge up to ChunkSize tokens whatever they hold, and a piece under
	// MinTokens joins a neighbour it fits with.
	Vectra bool
}

// MinTokens is the size, in tokens, below which a chunk is a fragment that
// the token-budget merge folds into a neighbour (a quarter of ChunkSize
// when that is smaller).
const MinTokens = 16

// minTokens is the fragment size for a chunk size.
func minTokens(size int) int { return min(MinTokens, max(1, size/4)) }

// Chunk is one piece of a split text (core's TextChunk).
type Chunk struct {
	Text                     string
	Tokens                   []int
	StartPos, EndPos         int
	StartOverlap, EndOverlap []int
}

// Splitter splits text with a Config. It is safe for concurrent use if its
// Tokenizer is.
type Splitter struct {
	cfg Config
}

// New returns a splitter for a validated cfg.
func New(cfg Config) *Splitter { return &Splitter{cfg: cfg} }

// Split cuts text into chunks, in order. Empty or whitespace-only text gives
// no chunks.
func (s *Splitter) Split(text string) []Chunk {
	pieces := s.recursiveSplit(text, s.cfg.Separators, 0)
	if !s.cfg.Vectra {
		pieces = s.foldFragments(pieces)
	}
	chunks := make([]Chunk, len(pieces))
	for i, p := range pieces {
		chunks[i] = Chunk{Text: p.text, Tokens: p.tokens, StartPos: p.start, EndPos: p.end}
	}
	if n := s.cfg.ChunkOverlap; n > 0 {
		for i := 0; i+1 < len(chunks); i++ {
			cur, next := &chunks[i], &chunks[i+1]
			next.StartOverlap = slices.Clone(cur.Tokens[max(0, len(cur.Tokens)-n):])
			cur.EndOverlap = slices.Clone(next.Tokens[:min(n, len(next.Tokens))])
		}
	}
	return chunks
}

// piece is a chunk being built; len16 caches the UTF-16 length of text, and
// owned says tokens is this piece's own copy, which merging may append to.
type piece struct {
	text       string
	len16      int
	tokens     []int
	owned      bool
	start, end int
}

// recursiveSplit splits text, which starts at UTF-16 offset startPos of the
// source, on the first of seps, recursing into each part with the rest.
func (s *Splitter) recursiveSplit(text string, seps []string, startPos int) []piece {
	if text == "" {
		return nil
	}
	if len(seps) == 0 {
		return s.combine(s.finalize(text, startPos), "")
	}
	sep, rest := seps[0], seps[1:]
	var parts []string
	sepLen16 := jsvalue.UTF16Len(sep)
	if sep == " " {
		// Vectra does not split on spaces: it cuts token windows, which
		// follow one another with nothing between them, so no separator is
		// consumed or re-attached (Vectra adds one per window: drift).
		parts = s.tokenWindows(text, s.cfg.Tokenizer.Encode(text))
		sepLen16 = 0
	} else {
		parts = strings.Split(text, sep)
	}
	var out []piece
	pos := startPos
	for i, part := range parts {
		last := i == len(parts)-1
		p := part
		if s.cfg.KeepSeparators && !last && sepLen16 > 0 {
			p += sep
		}
		consumed := jsvalue.UTF16Len(part)
		if !last {
			consumed += sepLen16
		}
		if hasNonSpace(p) {
			sub := s.recursiveSplit(p, rest, pos)
			if len(sub) == 0 {
				sub = s.finalize(p, pos)
			}
			out = append(out, sub...)
		}
		pos += consumed
	}
	joiner := ""
	if !s.cfg.KeepSeparators && sep != " " && strings.ContainsAny(sep, "\n\t") {
		joiner = " "
	}
	return s.combine(out, joiner)
}

// finalize turns text, at UTF-16 offset startPos, into chunks within the
// budget: token windows when it has too many tokens, character windows when
// it is one long unbroken word, else one chunk. A chunk's positions span the
// source it came from, before inline separators are stripped from its text.
func (s *Splitter) finalize(text string, startPos int) []piece {
	size := s.cfg.ChunkSize
	tokens := s.cfg.Tokenizer.Encode(text)
	if len(tokens) > size {
		var out []piece
		pos := startPos
		for _, window := range s.tokenWindows(text, tokens) {
			n16 := jsvalue.UTF16Len(window)
			body := strings.TrimLeftFunc(window, jsvalue.IsSpace)
			if body != "" {
				start := pos + n16 - jsvalue.UTF16Len(body)
				out = append(out, s.newPiece(body, start, nil))
			}
			pos += n16
		}
		return out
	}
	text16 := jsvalue.UTF16Len(text)
	if s.cfg.Vectra && text16 > size && !strings.ContainsFunc(text, jsvalue.IsSpace) && !s.containsSeparator(text) {
		var out []piece
		pos := startPos
		for _, window := range charWindows(text, size) {
			out = append(out, s.newPiece(window, pos, nil))
			pos += jsvalue.UTF16Len(window)
		}
		return out
	}
	return []piece{s.newPiece(text, startPos, tokens)}
}

// newPiece makes a chunk of the source text src at UTF-16 offset start: its
// text is src without inline separators, its positions span src. srcTokens,
// when not nil, are src's tokens, used when nothing was stripped.
func (s *Splitter) newPiece(src string, start int, srcTokens []int) piece {
	text := s.stripInlineSeparators(src)
	tokens := srcTokens
	if tokens == nil || len(text) != len(src) {
		tokens = s.cfg.Tokenizer.Encode(text)
	}
	n16 := jsvalue.UTF16Len(src)
	return piece{
		text:   text,
		len16:  n16 - (len(src) - len(text)), // stripped runs are ASCII: one unit per byte
		tokens: tokens,
		start:  start,
		end:    start + n16 - 1,
	}
}

// containsSeparator reports whether text holds any configured separator
// (the whole list, as Vectra checks, not only those left at this depth).
func (s *Splitter) containsSeparator(text string) bool {
	for _, sep := range s.cfg.Separators {
		if sep != "" && strings.Contains(text, sep) {
			return true
		}
	}
	return false
}

// combine merges neighbouring chunks greedily, left to right, while the
// merged tokens stay within ChunkSize. With Config.Vectra, the merged
// UTF-16 length must too, and chunks without a letter or digit (a "---"
// line, an emoji, a closing brace) stay alone.
func (s *Splitter) combine(chunks []piece, joiner string) []piece {
	if len(chunks) == 0 {
		return nil
	}
	size := s.cfg.ChunkSize
	joiner16 := jsvalue.UTF16Len(joiner)
	out := make([]piece, 0, len(chunks))
	cur := chunks[0]
	for _, next := range chunks[1:] {
		if len(cur.tokens)+len(next.tokens) > size || s.cfg.Vectra && (isPunctuationOnly(cur.text) ||
			isPunctuationOnly(next.text) || cur.len16+joiner16+next.len16 > size) {
			out = append(out, cur)
			cur = next
			continue
		}
		s.merge(&cur, next, joiner, joiner16)
	}
	return append(out, cur)
}

// merge appends next to cur, joined by joiner when separators are dropped.
func (s *Splitter) merge(cur *piece, next piece, joiner string, joiner16 int) {
	if !s.cfg.KeepSeparators && hasNonSpace(cur.text) && hasNonSpace(next.text) {
		cur.text += joiner
		cur.len16 += joiner16
	}
	cur.text += next.text
	cur.len16 += next.len16
	cur.end = next.end
	if !cur.owned {
		cur.tokens = slices.Clip(cur.tokens) // the next append copies
		cur.owned = true
	}
	cur.tokens = append(cur.tokens, next.tokens...)
}

// foldFragments folds each chunk under the fragment size into the
// neighbour it fits with, the one before first, so that a closing brace or
// a lone heading does not stand as a chunk of its own. A fragment that
// fits with neither stays; so does a text's only chunk. Across a dropped
// separator the two are joined with a space.
func (s *Splitter) foldFragments(chunks []piece) []piece {
	size, least := s.cfg.ChunkSize, minTokens(s.cfg.ChunkSize)
	joiner := ""
	if !s.cfg.KeepSeparators {
		joiner = " "
	}
	out := make([]piece, 0, len(chunks))
	for i := 0; i < len(chunks); i++ {
		cur := chunks[i]
		if len(cur.tokens) < least {
			if n := len(out); n > 0 && len(out[n-1].tokens)+len(cur.tokens) <= size {
				s.merge(&out[n-1], cur, joiner, len(joiner))
				continue
			}
			if i+1 < len(chunks) && len(cur.tokens)+len(chunks[i+1].tokens) <= size {
				s.merge(&cur, chunks[i+1], joiner, len(joiner))
				i++
			}
		}
		out = append(out, cur)
	}
	return out
}

// hasNonSpace reports whether s has a character that is not JavaScript
// whitespace (JavaScript's /\S/).
func hasNonSpace(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return !jsvalue.IsSpace(r) })
}

// isPunctuationOnly reports whether s has visible characters but no letter
// or digit, in any script. (Vectra looks for ASCII letters and digits only,
// so it never merges words written without them: Folio merges them as text.)
func isPunctuationOnly(s string) bool {
	return hasNonSpace(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsNumber(r)
	})
}

// ContextEncoder is core.ContextTokenizer: a tokenizer whose encoding stops
// when a context ends.
type ContextEncoder interface {
	EncodeContext(ctx context.Context, text string) ([]int, error)
}

// SplitContext is Split that stops when ctx ends and returns ctx's error:
// ctx is looked at before every encoding of a piece of text, and a
// tokenizer that is a ContextEncoder is given ctx for each, so a deadline
// bounds the split of even a very long text.
func (s *Splitter) SplitContext(ctx context.Context, text string) (chunks []Chunk, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg := s.cfg
	cfg.Tokenizer = ctxTokenizer{ctx: ctx, tok: s.cfg.Tokenizer}
	defer func() {
		if r := recover(); r != nil {
			stop, ok := r.(stopped)
			if !ok {
				panic(r)
			}
			chunks, err = nil, stop.err
		}
	}()
	return New(cfg).Split(text), nil
}

// stopped is the panic value that unwinds a SplitContext whose ctx ended,
// out of the splitter's recursion; SplitContext recovers it and nothing
// else.
type stopped struct{ err error }

// ctxTokenizer encodes under a context for SplitContext, panicking with
// stopped once the context has ended.
type ctxTokenizer struct {
	ctx context.Context
	tok Tokenizer
}

func (t ctxTokenizer) Encode(text string) []int {
	if ct, ok := t.tok.(ContextEncoder); ok {
		ids, err := ct.EncodeContext(t.ctx, text)
		if err != nil {
			panic(stopped{err})
		}
		return ids
	}
	if err := t.ctx.Err(); err != nil {
		panic(stopped{err})
	}
	return t.tok.Encode(text)
}

func (t ctxTokenizer) Decode(tokens []int) string { return t.tok.Decode(tokens) }
