package core

import (
	"context"
	"errors"
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

// EmbeddingsStatus is the outcome of a CreateEmbeddings call.
type EmbeddingsStatus string

// Embeddings statuses, as Vectra names them.
const (
	EmbeddingsSuccess     EmbeddingsStatus = "success"
	EmbeddingsFailed      EmbeddingsStatus = "error"
	EmbeddingsRateLimited EmbeddingsStatus = "rate_limited"
	EmbeddingsCancelled   EmbeddingsStatus = "cancelled"
)

// EmbeddingsResponse is what CreateEmbeddings returns.
type EmbeddingsResponse struct {
	Status  EmbeddingsStatus
	Output  [][]float32
	Message string
	Model   string
	Usage   map[string]any
}

// Errors reachable from an *EmbeddingsError through errors.Is, one per
// failure status.
var (
	ErrEmbeddingsFailed    = errors.New("embeddings failed")
	ErrRateLimited         = errors.New("embeddings rate limited")
	ErrEmbeddingsCancelled = errors.New("embeddings cancelled")
)

// EmbeddingsError is the error every EmbeddingsModel returns on failure.
//
// errors.Is matches it against ErrEmbeddingsFailed, ErrRateLimited or
// ErrEmbeddingsCancelled according to Status, and against Err (for example
// context.Canceled) when set.
type EmbeddingsError struct {
	Status  EmbeddingsStatus
	Message string
	Err     error // underlying cause, may be nil
}

func (e *EmbeddingsError) Error() string {
	msg := "embeddings " + string(e.Status)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Unwrap returns the underlying cause.
func (e *EmbeddingsError) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel for e.Status.
func (e *EmbeddingsError) Is(target error) bool {
	switch e.Status {
	case EmbeddingsRateLimited:
		return target == ErrRateLimited
	case EmbeddingsCancelled:
		return target == ErrEmbeddingsCancelled
	case EmbeddingsFailed:
		return target == ErrEmbeddingsFailed
	}
	return false
}

// Tokenizer turns text into token ids and back.
//
// Implementations must be safe for concurrent use.
type Tokenizer interface {
	Encode(text string) []int
	Decode(tokens []int) string
}

// TextFetcher reads documents from a source (files, web pages).
type TextFetcher interface {
	// Fetch calls onDocument for each document found at uri. onDocument
	// returning false stops the walk; Fetch then returns false.
	Fetch(ctx context.Context, uri string,
		onDocument func(ctx context.Context, uri, text, docType string) (bool, error)) (bool, error)
}
