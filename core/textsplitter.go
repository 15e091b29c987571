package core

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/foliovec/folio/core/jsvalue"
)

// TextSplitterConfig configures a TextSplitter.
type TextSplitterConfig struct {
	// ChunkSize is the most tokens (and UTF-16 characters, when chunks are
	// merged) a chunk holds. At least 1.
	ChunkSize int
	// ChunkOverlap is how many tokens of each neighbour a chunk records in
	// StartOverlap and EndOverlap. Between 0 and ChunkSize.
	ChunkOverlap int
	// KeepSeparators keeps the separators in the chunks' text, attached to
	// the end of the piece before them; otherwise they are dropped, pieces
	// split on a line break are joined with a space, and runs of three or
	// more -, *, = or _ touching other text are removed.
	KeepSeparators bool
	// Separators are tried in order, most significant first. Empty means the
	// list for DocType.
	Separators []string
	// DocType picks the separators when Separators is empty: "md", "py",
	// "go", "html"… exact and case-sensitive; anything else gets blank lines
	// then line breaks.
	DocType string
	// Tokenizer counts and cuts tokens. Required.
	Tokenizer Tokenizer
}

// DefaultTextSplitterConfig is Vectra's TextSplitter default: 400-token
// chunks, 40 tokens of overlap, separators dropped. Tokenizer is nil: set it.
func DefaultTextSplitterConfig() TextSplitterConfig {
	return TextSplitterConfig{ChunkSize: 400, ChunkOverlap: 40}
}

// DefaultDocumentChunkingConfig is how a LocalDocumentIndex splits
// documents by default: 512-token chunks, no overlap, separators kept.
// Tokenizer is nil: set it.
func DefaultDocumentChunkingConfig() TextSplitterConfig {
	return TextSplitterConfig{ChunkSize: 512, ChunkOverlap: 0, KeepSeparators: true}
}

// TextChunk is one piece of a split text.
type TextChunk struct {
	// Text is the chunk's text. It may differ from the source between
	// StartPos and EndPos: separators dropped, a space joining pieces that
	// were split on a line break, inline separator runs removed.
	Text string
	// Tokens are Text's tokens (merged chunks concatenate their pieces'
	// tokens).
	Tokens []int
	// StartPos and EndPos are inclusive UTF-16 offsets into the source text
	// (JavaScript string indexes, as Vectra stores them).
	StartPos, EndPos int
	// StartOverlap is the last ChunkOverlap tokens of the previous chunk,
	// EndOverlap the first ChunkOverlap tokens of the next; nil when there
	// is no such chunk or ChunkOverlap is 0. They are not part of Text.
	StartOverlap, EndOverlap []int
}

// TextSplitter splits text into chunks of at most ChunkSize tokens along
// the most significant separators it can, Vectra's recursive algorithm,
// with positions that never drift.
//
// It is safe for concurrent use if its Tokenizer is.
type TextSplitter struct {
	cfg TextSplitterConfig // Separators resolved, never empty
}

// NewTextSplitter validates cfg and returns a splitter. Errors wrap
// ErrInvalidArgument: ChunkSize < 1, ChunkOverlap < 0, ChunkOverlap >
// ChunkSize, or no Tokenizer.
func NewTextSplitter(cfg TextSplitterConfig) (*TextSplitter, error) {
	switch {
	case cfg.ChunkSize < 1:
		return nil, fmt.Errorf("core: new text splitter: chunkSize must be >= 1, got %d: %w", cfg.ChunkSize, ErrInvalidArgument)
	case cfg.ChunkOverlap < 0:
		return nil, fmt.Errorf("core: new text splitter: chunkOverlap must be >= 0, got %d: %w", cfg.ChunkOverlap, ErrInvalidArgument)
	case cfg.ChunkOverlap > cfg.ChunkSize:
		return nil, fmt.Errorf("core: new text splitter: chunkOverlap must be <= chunkSize, got %d > %d: %w",
			cfg.ChunkOverlap, cfg.ChunkSize, ErrInvalidArgument)
	case cfg.Tokenizer == nil:
		return nil, fmt.Errorf("core: new text splitter: a tokenizer is required: %w", ErrInvalidArgument)
	}
	if len(cfg.Separators) == 0 {
		cfg.Separators = separatorsFor(cfg.DocType)
	} else {
		cfg.Separators = slices.Clone(cfg.Separators)
	}
	return &TextSplitter{cfg: cfg}, nil
}

// Split cuts text into chunks, in order. Empty or whitespace-only text gives
// no chunks.
func (s *TextSplitter) Split(text string) []TextChunk {
	pieces := s.recursiveSplit(text, s.cfg.Separators, 0)
	chunks := make([]TextChunk, len(pieces))
	for i, p := range pieces {
		chunks[i] = TextChunk{Text: p.text, Tokens: p.tokens, StartPos: p.start, EndPos: p.end}
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
func (s *TextSplitter) recursiveSplit(text string, seps []string, startPos int) []piece {
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
func (s *TextSplitter) finalize(text string, startPos int) []piece {
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
	if text16 > size && !strings.ContainsFunc(text, jsvalue.IsSpace) && !s.containsSeparator(text) {
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
func (s *TextSplitter) newPiece(src string, start int, srcTokens []int) piece {
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
func (s *TextSplitter) containsSeparator(text string) bool {
	for _, sep := range s.cfg.Separators {
		if sep != "" && strings.Contains(text, sep) {
			return true
		}
	}
	return false
}

// combine merges neighbouring chunks greedily, left to right, while both
// the merged tokens and the merged UTF-16 length stay within ChunkSize.
// Chunks without a letter or digit (a "---" line, an emoji) stay alone.
func (s *TextSplitter) combine(chunks []piece, joiner string) []piece {
	if len(chunks) == 0 {
		return nil
	}
	size := s.cfg.ChunkSize
	joiner16 := jsvalue.UTF16Len(joiner)
	out := make([]piece, 0, len(chunks))
	cur := chunks[0]
	for _, next := range chunks[1:] {
		if isPunctuationOnly(cur.text) || isPunctuationOnly(next.text) ||
			len(cur.tokens)+len(next.tokens) > size || cur.len16+joiner16+next.len16 > size {
			out = append(out, cur)
			cur = next
			continue
		}
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
	return append(out, cur)
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
