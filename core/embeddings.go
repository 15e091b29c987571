package core

import (
	"errors"
	"fmt"

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

// EmbeddingsOutput reads the outcome of a CreateEmbeddings call made for
// inputs texts, as the document index, the gRPC server and the JavaScript
// module all read it: the vectors when the call succeeded with one vector
// an input, else an error that is always an *EmbeddingsError. A model's own
// *EmbeddingsError comes back as it is; another error becomes one with
// status EmbeddingsFailed, its text as the message and itself as Err; a
// response whose status is not EmbeddingsSuccess becomes one with that
// status (EmbeddingsFailed when empty) and the response's message; a
// successful response with the wrong number of vectors, one with status
// EmbeddingsFailed that says so.
func EmbeddingsOutput(resp EmbeddingsResponse, err error, inputs int) ([][]float32, error) {
	if err != nil {
		if ee, ok := err.(*EmbeddingsError); ok && ee.Status != EmbeddingsSuccess && ee.Status != "" {
			return nil, ee
		}
		var ee *EmbeddingsError
		if errors.As(err, &ee) && ee.Status != EmbeddingsSuccess && ee.Status != "" {
			return nil, &EmbeddingsError{Status: ee.Status, Message: ee.Message, Err: err}
		}
		return nil, &EmbeddingsError{Status: EmbeddingsFailed, Message: err.Error(), Err: err}
	}
	if resp.Status != EmbeddingsSuccess {
		status := resp.Status
		if status == "" {
			status = EmbeddingsFailed
		}
		return nil, &EmbeddingsError{Status: status, Message: resp.Message}
	}
	if len(resp.Output) != inputs {
		return nil, &EmbeddingsError{Status: EmbeddingsFailed, Message: fmt.Sprintf("%d vectors for %d inputs", len(resp.Output), inputs)}
	}
	return resp.Output, nil
}
