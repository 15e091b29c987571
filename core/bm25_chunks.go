package core

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
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
	return jsString(id), jsNumber(sp), jsNumber(ep), true
}

func jsString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func jsNumber(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return 0
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return f
	}
	return math.NaN()
}

// utf16Units is text as JavaScript sees it: UTF-16 code units.
func utf16Units(text string) []uint16 { return utf16.Encode([]rune(text)) }

// jsSubstring is JavaScript's units.substring(start, end): NaN reads as 0,
// fractions are truncated, both ends are clamped to [0, len] and swapped
// when start > end.
func jsSubstring(units []uint16, start, end float64) string {
	clamp := func(x float64) int {
		if x != x || x <= 0 {
			return 0
		}
		if x >= float64(len(units)) {
			return len(units)
		}
		return int(x)
	}
	a, b := clamp(start), clamp(end)
	if a > b {
		a, b = b, a
	}
	return string(utf16.Decode(units[a:b]))
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
