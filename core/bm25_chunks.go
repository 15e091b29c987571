package core

import (
	"context"
	"fmt"
	"math"

	"github.com/foliovec/folio/core/jsvalue"
	"github.com/foliovec/folio/core/pathutil"
)

// ChunkSpan returns the document id and the inclusive UTF-16 start and end
// offsets into its text of a document chunk item, from the item's inline
// metadata (documentId, startPos, endPos). Values are read as Vectra reads
// them, by JavaScript's String() and Number(): a position may be a number
// or a string ("0x10" is 16, "0b11" is 3, "" is 0, " 12 " is 12), a
// fraction is truncated. ok is false when a key is missing or nil, or a
// position is not a finite number of at most 2^40. Rendering, keyword
// search, the folio command and the gRPC server all read spans through it.
func ChunkSpan(md Metadata) (documentID string, start, end int, ok bool) {
	id, found := md["documentId"]
	if !found || id == nil {
		return "", 0, 0, false
	}
	if start, end, ok = chunkPositions(md); !ok {
		return "", 0, 0, false
	}
	return jsvalue.String(id), start, end, true
}

// chunkPositions reads startPos and endPos as ChunkSpan does; rendering
// needs no documentId.
func chunkPositions(md Metadata) (start, end int, ok bool) {
	sp, ok1 := md["startPos"]
	ep, ok2 := md["endPos"]
	if !ok1 || !ok2 || sp == nil || ep == nil {
		return 0, 0, false
	}
	start, ok1 = spanPosition(sp)
	end, ok2 = spanPosition(ep)
	return start, end, ok1 && ok2
}

// spanPosition is a chunk position read as JavaScript's Number(v),
// truncated to an integer.
func spanPosition(v any) (int, bool) {
	f := jsNumber(v)
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<40 {
		return 0, false
	}
	return int(f), true
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

// chunkText cuts a chunk's text out of its document's UTF-16 units.
func chunkText(units []uint16, start, end int) string {
	return jsvalue.Substring(units, float64(start), float64(end)+1)
}

// readDocumentText is the default IndexOptions.DocReader: the text of
// "<documentID>.txt" in the index folder, as Vectra's LocalDocument reads
// it. An id that would leave the folder is ErrInvalidArgument.
func (ix *LocalIndex) readDocumentText(ctx context.Context, documentID string) (string, error) {
	name := documentID + ".txt"
	if !pathutil.IsLocal(name) {
		return "", fmt.Errorf("document id %q leaves the index folder: %w", documentID, ErrInvalidArgument)
	}
	raw, err := ix.storage.ReadFile(ctx, ix.path(name))
	if err != nil {
		return "", err
	}
	return string(raw), nil
}
