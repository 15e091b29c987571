package embedonnx

import (
	"context"
	"errors"

	"github.com/foliovec/folio/core"
)

// ErrClosed: the model was closed.
var ErrClosed = errors.New("embeddings model closed")

// failure builds the response and error of a failed call: cancelled when
// the context ended (its error passes through), error otherwise.
func failure(ctx context.Context, prefix string, err error) (core.EmbeddingsResponse, error) {
	status := core.EmbeddingsFailed
	if ctxErr := ctx.Err(); ctxErr != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ctxErr)) {
		status, err = core.EmbeddingsCancelled, ctxErr
	}
	msg := prefix + err.Error()
	return core.EmbeddingsResponse{Status: status, Message: msg},
		&core.EmbeddingsError{Status: status, Message: msg, Err: err}
}
