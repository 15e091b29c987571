package core

import (
	"context"
	"fmt"
	"math"

	"github.com/foliovec/folio/core/jsvalue"
)

// chunkSpan returns the document id and the inclusive UTF-16 start and end
// offsets of a chunk item, from its inline metadata; ok is false when one of
// documentId, startPos, endPos is missing (or nil). Values are converted as
// JavaScript's String() and Number() would (Vectra's hybrid search).
func chunkSpan(md Metadata) (docID string, start, end float64, ok bool) {
	id, ok1 := md["documentId"]
	sp, ok2 := md["startPos"]
	ep, ok3 := md["endPos"]
	if !ok1 || !ok2 || !ok3 || id == nil || sp == nil || ep == nil {
		return "", 0, 0, false
	}
	return jsvalue.String(id), jsNumber(sp), jsNumber(ep), true
}

// jsNumber is JavaScript's Number(v) for a metadata value: numbers as they
// are, booleans as 1 and 0, strings as Number() reads them, anything else
// NaN.
func jsNumber(v any) float64 {
	switch x := v.(type) {
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		return jsvalue.ToNumber(x)
	}
	if f, ok := jsvalue.Number(v); ok {
		return f
	}
	return math.NaN()
}

// readDocumentText is the default IndexOptions.DocReader: the text of
// "<documentID>.txt" in the index folder, as Vectra's LocalDocument reads
// it. An id that would leave the folder is ErrInvalidArgument.
func (ix *LocalIndex) readDocumentText(ctx context.Context, documentID string) (string, error) {
	name := documentID + ".txt"
	if !isInsideRelPath(name) {
		return "", fmt.Errorf("document id %q leaves the index folder: %w", documentID, ErrInvalidArgument)
	}
	raw, err := ix.storage.ReadFile(ctx, ix.path(name))
	if err != nil {
		return "", err
	}
	return string(raw), nil
}
