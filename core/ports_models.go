package core

import (
	"context"
)

// EmbeddingsModel turns texts into vectors.
//
// Implementations must be safe for concurrent use.
type EmbeddingsModel interface {
	// MaxTokens is the most tokens one CreateEmbeddings call accepts in all.
	MaxTokens() int
	// CreateEmbeddings returns one vector per input, in input order.
	// On failure err is a *EmbeddingsError whose Status is error,
	// rate_limited or cancelled, and the response carries the same Status
	// and Message.
	CreateEmbeddings(ctx context.Context, inputs []string) (EmbeddingsResponse, error)
}

// Tokenizer turns text into token ids and back.
//
// Implementations must be safe for concurrent use.
type Tokenizer interface {
	Encode(text string) []int
	Decode(tokens []int) string
}

// ContextTokenizer is an optional Tokenizer capability: an encoding of a
// long text that stops when ctx ends, returning ctx's error. The document
// index splits documents through it when the tokenizer offers it, so a
// deadline bounds an upsert however long its text; with a plain Tokenizer
// the deadline is checked between Encode calls only.
type ContextTokenizer interface {
	Tokenizer
	EncodeContext(ctx context.Context, text string) ([]int, error)
}

// TextFetcher reads documents from a source (files, web pages).
type TextFetcher interface {
	// Fetch calls onDocument for each document found at uri. onDocument
	// returning false stops the walk; Fetch then returns false.
	Fetch(ctx context.Context, uri string,
		onDocument func(ctx context.Context, uri, text, docType string) (bool, error)) (bool, error)
}

// KeywordScorer scores texts against a query for the keyword half of
// hybrid queries (IndexOptions.KeywordScorer).
type KeywordScorer interface {
	// ScoreKeywords returns one score per text, in order: higher is a
	// better match, 0 or less no match. An error fails the query.
	ScoreKeywords(ctx context.Context, query string, texts []string) ([]float64, error)
}
