// Package meta holds the rules core applies to metadata values: how a value
// is stored (Clean), which keys stay inline and which go to a side-car
// (Split), Vectra's content hash of a document (ContentHash), and how a
// chunk's document and span are read (DocumentID, Positions), all with
// JavaScript's value semantics, as Vectra 0.15 applies them.
package meta

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/foliovec/folio/core/internal/errs"
	"github.com/foliovec/folio/core/jsvalue"
	"github.com/foliovec/folio/core/pathutil"
)

// CleanValue returns v as stored: strings and booleans as they are,
// every Go number as float64. A value of another type, or a NaN or infinite
// number, is errs.ErrInvalidArgument.
func CleanValue(k string, v any) (any, error) {
	switch x := v.(type) {
	case string, bool:
		return x, nil
	}
	f, ok := jsvalue.Number(v)
	if !ok {
		if n, isNum := v.(json.Number); isNum {
			return nil, fmt.Errorf("metadata %q: %q is not a number: %w", k, n, errs.ErrInvalidArgument)
		}
		return nil, fmt.Errorf("metadata %q: unsupported value type %T: %w", k, v, errs.ErrInvalidArgument)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("metadata %q: %v is not a finite number: %w", k, f, errs.ErrInvalidArgument)
	}
	return f, nil
}

// Clean copies md with every value cleaned (CleanValue).
// nil gives an empty map.
func Clean[M ~map[string]any](md M) (M, error) {
	out := make(M, len(md))
	for k, v := range md {
		c, err := CleanValue(k, v)
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	return out, nil
}

// Split cleans md and returns the metadata kept inline and, when
// the item needs a side-car, the full metadata to write there (else nil):
// with indexed keys, inline holds only those and the keys in keep, and any
// other key sends the full metadata to a side-car, as Vectra writes it.
// Without indexed keys everything is inline.
func Split[M ~map[string]any](indexed, keep []string, md M) (inline, sidecar M, err error) {
	if len(indexed) == 0 {
		inline, err = Clean(md)
		return inline, nil, err
	}
	inline = make(M, len(indexed)+len(keep))
	for _, keys := range [2][]string{indexed, keep} {
		for _, k := range keys {
			if v, ok := md[k]; ok {
				if inline[k], err = CleanValue(k, v); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	if len(inline) == len(md) {
		return inline, nil, nil
	}
	full, err := Clean(md)
	if err != nil {
		return nil, nil, err
	}
	return inline, full, nil
}

// ContentHash is Vectra's content hash of a document, byte for
// byte, so that a document Vectra stored is recognised as unchanged: the
// SHA-256, as 64 lowercase hex digits, of
//
//	text 0x00 docType 0x00 canonical(metadata)
//
// where canonical(metadata) is "{" + the entries joined with "," + "}", each
// entry JSON.stringify(key) + ":" + JSON.stringify(value), keys sorted as
// JavaScript's default sort does (by UTF-16 code units). nil and empty
// metadata hash alike, and so do the empty docType and none.
//
// Values are cleaned first (every Go number becomes the float64 JavaScript
// would hold); a value of another type is errs.ErrInvalidArgument. Strings are
// hashed as their bytes: for valid UTF-8, the only kind a JavaScript string
// can produce, that is Vectra's hash.
func ContentHash(text, docType string, metadata map[string]any) (string, error) {
	h := sha256.New()
	h.Write([]byte(text))
	h.Write([]byte{0})
	h.Write([]byte(docType))
	h.Write([]byte{0})
	canon, err := canonical(metadata)
	if err != nil {
		return "", err
	}
	h.Write(canon)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])), nil
}

// canonical renders metadata as Vectra's ContentHash does:
// sorted keys, JSON.stringify'd keys and values, no whitespace.
func canonical(metadata map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(metadata))
	for k := range metadata {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, jsvalue.Compare)
	out := make([]byte, 0, 2+16*len(keys))
	out = append(out, '{')
	for i, k := range keys {
		v, err := CleanValue(k, metadata[k])
		if err != nil {
			return nil, fmt.Errorf("content hash: %w", err)
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = jsvalue.AppendQuote(out, k)
		out = append(out, ':')
		switch x := v.(type) {
		case string:
			out = jsvalue.AppendQuote(out, x)
		case bool:
			out = strconv.AppendBool(out, x)
		case float64:
			out = jsvalue.AppendJSONNumber(out, x)
		}
	}
	return append(out, '}'), nil
}

// Positions reads startPos and endPos as ChunkSpan does; rendering
// needs no documentId.
func Positions(md map[string]any) (start, end int, ok bool) {
	sp, ok1 := md["startPos"]
	ep, ok2 := md["endPos"]
	if !ok1 || !ok2 || sp == nil || ep == nil {
		return 0, 0, false
	}
	start, ok1 = position(sp)
	end, ok2 = position(ep)
	return start, end, ok1 && ok2
}

// position is a chunk position read as JavaScript's Number(v),
// truncated to an integer.
func position(v any) (int, bool) {
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

// DocumentID returns the documentId of a chunk item, as JavaScript's
// String() writes it; ok is false for items that are not chunks (without
// documentId, startPos or endPos).
func DocumentID(md map[string]any) (string, bool) {
	id, ok := md["documentId"]
	if !ok || id == nil {
		return "", false
	}
	if _, ok := md["startPos"]; !ok {
		return "", false
	}
	if _, ok := md["endPos"]; !ok {
		return "", false
	}
	switch x := id.(type) {
	case string:
		return x, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		return jsvalue.FormatNumber(x), true
	}
	return "", false
}

// IsBm25 reports whether a chunk came from the keyword search: its
// metadata's isBm25 is true, "true", 1 or "1" (as Vectra reads it).
func IsBm25(md map[string]any) bool {
	switch v := md["isBm25"].(type) {
	case bool:
		return v
	case string:
		return v == "true" || v == "1"
	case float64:
		return v == 1
	case int:
		return v == 1
	}
	return false
}

// ValidDocumentID reports whether id can name files in the index folder:
// "<id>.txt" stays inside it. Vectra's ids are uuids.
func ValidDocumentID(id string) bool {
	return id != "" && !strings.Contains(id, "/") && pathutil.IsLocal(id+".txt")
}

// CheckDocumentIDs refuses a catalog whose ids (the keys of idToURI, the
// values of uriToID) would name files outside the index folder: the error
// wraps errs.ErrCorrupt.
func CheckDocumentIDs(idToURI, uriToID map[string]string) error {
	for id := range idToURI {
		if !ValidDocumentID(id) {
			return fmt.Errorf("document id %q leaves the index folder: %w", id, errs.ErrCorrupt)
		}
	}
	for _, id := range uriToID {
		if !ValidDocumentID(id) {
			return fmt.Errorf("document id %q leaves the index folder: %w", id, errs.ErrCorrupt)
		}
	}
	return nil
}

// Span is core.ChunkSpan: a chunk's documentId, as JavaScript's String()
// writes it, and its positions (Positions); ok is false when documentId is
// missing or nil, or the positions cannot be read.
func Span(md map[string]any) (documentID string, start, end int, ok bool) {
	id, found := md["documentId"]
	if !found || id == nil {
		return "", 0, 0, false
	}
	if start, end, ok = Positions(md); !ok {
		return "", 0, 0, false
	}
	return jsvalue.String(id), start, end, true
}
