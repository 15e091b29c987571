package core

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	"github.com/foliovec/folio/core/jsvalue"
)

// contentHash is Vectra's content hash of a document, byte for
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
// would hold); a value of another type is ErrInvalidArgument. Strings are
// hashed as their bytes: for valid UTF-8, the only kind a JavaScript string
// can produce, that is Vectra's hash.
func contentHash(text, docType string, metadata Metadata) (string, error) {
	h := sha256.New()
	h.Write([]byte(text))
	h.Write([]byte{0})
	h.Write([]byte(docType))
	h.Write([]byte{0})
	canon, err := hashCanonicalMetadata(metadata)
	if err != nil {
		return "", err
	}
	h.Write(canon)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])), nil
}

// hashCanonicalMetadata renders metadata as Vectra's contentHash does:
// sorted keys, JSON.stringify'd keys and values, no whitespace.
func hashCanonicalMetadata(metadata Metadata) ([]byte, error) {
	keys := make([]string, 0, len(metadata))
	for k := range metadata {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, jsvalue.Compare)
	out := make([]byte, 0, 2+16*len(keys))
	out = append(out, '{')
	for i, k := range keys {
		v, err := cleanMetadataValue(k, metadata[k])
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
