package core

import (
	"errors"

	"github.com/foliovec/folio/core/internal/embedpipe"
)

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

// TokenBatches cuts texts into runs [from, to) of consecutive texts whose
// token counts (tok.Encode) add up to at most limit, for embeddings calls
// of at most an EmbeddingsModel's MaxTokens; a text over the limit is a run
// of its own. With a limit of 0 or less, or a nil tokenizer, all texts are
// one run; no texts, no run.
func TokenBatches(texts []string, tok Tokenizer, limit int) [][2]int {
	if tok == nil {
		limit = 0
	}
	return embedpipe.Batches(len(texts), limit, func(i int) int { return len(tok.Encode(texts[i])) })
}
