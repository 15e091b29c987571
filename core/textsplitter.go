package core

import (
	"context"
	"fmt"
	"slices"

	"github.com/foliovec/folio/core/internal/split"
)

// TextSplitterConfig configures a TextSplitter.
type TextSplitterConfig struct {
	// ChunkSize is the most tokens a chunk holds; 0 means 400, Vectra's
	// TextSplitter default. Negative is ErrInvalidArgument. Pieces are
	// merged up to ChunkSize tokens, and a piece under 16 tokens (a quarter
	// of ChunkSize when that is less) is merged into a neighbour it fits
	// with, unless it is the text's only chunk.
	ChunkSize int
	// ChunkOverlap is how many tokens of each neighbour a chunk records in
	// StartOverlap and EndOverlap, between 0 and ChunkSize. Unlike the
	// other fields, 0 means none, not Vectra's default of 40
	// (DefaultTextSplitterConfig has it).
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
	// "go", "html", "rb"… exact and case-sensitive; anything else gets blank
	// lines then line breaks. ("rb" is Ruby, as Vectra documents it, except
	// with VectraChunking, which splits it as plain text as Vectra does.)
	DocType string
	// Tokenizer counts and cuts tokens. Required.
	Tokenizer Tokenizer
	// VectraChunking makes exactly the chunks Vectra 0.15's TextSplitter
	// makes, for users who need them identical: merging also stops at
	// ChunkSize UTF-16 characters (although the option counts tokens),
	// pieces without a letter or digit ("}", "---") are never merged,
	// small fragments stay chunks of their own, and a long unbroken word
	// is cut every ChunkSize characters. Folio's default merges by tokens
	// alone, which makes chunks several times larger and far fewer (on Go
	// source, a median of 3 tokens per chunk becomes hundreds).
	VectraChunking bool
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
type TextSplitter struct{ inner *split.Splitter }

// NewTextSplitter validates cfg and returns a splitter. Errors wrap
// ErrInvalidArgument: ChunkSize < 1, ChunkOverlap < 0, ChunkOverlap >
// ChunkSize, or no Tokenizer.
func NewTextSplitter(cfg TextSplitterConfig) (*TextSplitter, error) {
	if cfg.ChunkSize == 0 {
		cfg.ChunkSize = DefaultTextSplitterConfig().ChunkSize
	}
	switch {
	case cfg.ChunkSize < 1:
		return nil, fmt.Errorf("new text splitter: chunkSize must be >= 1, got %d: %w", cfg.ChunkSize, ErrInvalidArgument)
	case cfg.ChunkOverlap < 0:
		return nil, fmt.Errorf("new text splitter: chunkOverlap must be >= 0, got %d: %w", cfg.ChunkOverlap, ErrInvalidArgument)
	case cfg.ChunkOverlap > cfg.ChunkSize:
		return nil, fmt.Errorf("new text splitter: chunkOverlap must be <= chunkSize, got %d > %d: %w",
			cfg.ChunkOverlap, cfg.ChunkSize, ErrInvalidArgument)
	case cfg.Tokenizer == nil:
		return nil, fmt.Errorf("new text splitter: a tokenizer is required: %w", ErrInvalidArgument)
	}
	seps := slices.Clone(cfg.Separators)
	if len(seps) == 0 {
		docType := cfg.DocType
		if docType == "rb" && !cfg.VectraChunking {
			// Vectra documents "rb" as Ruby but splits it as plain text;
			// Folio splits it as Ruby, except where it makes Vectra's
			// exact chunks.
			docType = "ruby"
		}
		seps = split.SeparatorsFor(docType)
	}
	inner := split.Config{
		ChunkSize:      cfg.ChunkSize,
		ChunkOverlap:   cfg.ChunkOverlap,
		KeepSeparators: cfg.KeepSeparators,
		Separators:     seps,
		Tokenizer:      cfg.Tokenizer,
		Vectra:         cfg.VectraChunking,
	}
	return &TextSplitter{inner: split.New(inner)}, nil
}

// Split cuts text into chunks, in order. Empty or whitespace-only text gives
// no chunks.
func (s *TextSplitter) Split(text string) []TextChunk {
	return chunksOf(s.inner.Split(text))
}

// SplitContext is Split that stops when ctx ends and returns ctx's error:
// ctx is looked at before every encoding of a piece of text, and a
// tokenizer that offers ContextTokenizer is given ctx for each, so a
// deadline bounds the split of even a very long text.
func (s *TextSplitter) SplitContext(ctx context.Context, text string) ([]TextChunk, error) {
	pieces, err := s.inner.SplitContext(ctx, text)
	if err != nil {
		return nil, err
	}
	return chunksOf(pieces), nil
}

func chunksOf(pieces []split.Chunk) []TextChunk {
	chunks := make([]TextChunk, len(pieces))
	for i, c := range pieces {
		chunks[i] = TextChunk(c)
	}
	return chunks
}

// ChunkingConfig is how a document index splits its documents. Every zero
// field means its default, the way Vectra 0.15 merges a partial chunking
// config into its document defaults: ChunkingConfig{ChunkSize: 256} keeps
// separators, as Vectra's {chunkSize: 256} does.
type ChunkingConfig struct {
	// ChunkSize is the most tokens a chunk holds; 0 means 512.
	ChunkSize int
	// ChunkOverlap is the tokens each chunk shares with the next (as
	// StartOverlap and EndOverlap); 0 means none, the document default.
	ChunkOverlap int
	// DropSeparators drops the separators a document is split at from the
	// chunks' texts. A document index keeps them by default (Vectra's
	// keepSeparators: true), so the field says the opposite and its zero
	// value is the default.
	DropSeparators bool
	// Separators replaces the separators of the document's type, most
	// significant first; nil means those of the type.
	Separators []string
	// DocType, when set, is the type of every document, whatever
	// UpsertDocument is given (as in Vectra).
	DocType string
	// Tokenizer counts and cuts tokens; nil means the document index's
	// Tokenizer.
	Tokenizer Tokenizer
	// VectraChunking splits documents into exactly the chunks Vectra 0.15
	// makes (see TextSplitterConfig.VectraChunking), and embeds them bare.
	VectraChunking bool
	// BareChunks embeds each chunk's text alone, as Vectra does. By
	// default a chunk is embedded after a line naming its document's
	// title and the headings above it ("npm-link > Synopsis"), so that its
	// vector knows what the chunk is part of; the chunk's text and
	// positions are the same either way.
	BareChunks bool
}

// TextSplitterConfig is the splitter configuration c means: its fields,
// with the document defaults for those left zero.
func (c ChunkingConfig) TextSplitterConfig() TextSplitterConfig {
	cfg := DefaultDocumentChunkingConfig()
	if c.ChunkSize != 0 {
		cfg.ChunkSize = c.ChunkSize
	}
	cfg.ChunkOverlap = c.ChunkOverlap
	cfg.KeepSeparators = !c.DropSeparators
	cfg.Separators = c.Separators
	cfg.DocType = c.DocType
	cfg.Tokenizer = c.Tokenizer
	cfg.VectraChunking = c.VectraChunking
	return cfg
}
