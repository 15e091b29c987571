package core

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
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
	slices.SortFunc(keys, compareUTF16)
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
		out = hashAppendString(out, k)
		out = append(out, ':')
		switch x := v.(type) {
		case string:
			out = hashAppendString(out, x)
		case bool:
			out = strconv.AppendBool(out, x)
		case float64:
			out = hashAppendNumber(out, x)
		}
	}
	return append(out, '}'), nil
}

// compareUTF16 orders strings as JavaScript's default sort does: by UTF-16
// code units. It differs from Go's byte order only where a character above
// U+FFFF (a surrogate pair, 0xD800–0xDBFF first) meets one in
// U+E000–U+FFFF.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ca, cb := a[:na], b[:nb]; ca != cb {
			if ua, ub := firstUTF16Unit(ra), firstUTF16Unit(rb); ua != ub {
				if ua < ub {
					return -1
				}
				return 1
			}
			// Same first unit: two characters above U+FFFF with one high
			// surrogate, whose low surrogates order as their UTF-8 bytes
			// do, or invalid bytes (U+FFFD): the bytes decide.
			return compareBytes(ca, cb)
		}
		a, b = a[na:], b[nb:]
	}
	return compareBytes(a, b)
}

func compareBytes(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// firstUTF16Unit is the first UTF-16 code unit of r.
func firstUTF16Unit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// hashAppendNumber appends x as JSON.stringify writes a number: the
// shortest decimal that reads back as x, without ".0", in exponent form
// below 1e-6 and from 1e21 on ("1e-7", "1e+21"), -0 as 0, and NaN and
// ±Infinity as null.
func hashAppendNumber(b []byte, x float64) []byte {
	switch {
	case x == 0:
		return append(b, '0')
	case math.IsNaN(x) || math.IsInf(x, 0):
		return append(b, "null"...)
	}
	if abs := math.Abs(x); abs < 1e-6 || abs >= 1e21 {
		start := len(b)
		b = strconv.AppendFloat(b, x, 'e', -1, 64)
		// Go writes at least two exponent digits ("1e-07"); JavaScript
		// writes as many as needed ("1e-7").
		if n := len(b); n-start >= 4 && b[n-4] == 'e' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
		return b
	}
	return strconv.AppendFloat(b, x, 'f', -1, 64)
}

// hashAppendString appends s quoted as JSON.stringify quotes a string: `"`
// and `\` escaped, \b \f \n \r \t by name, other control characters as
// \u00XX in lowercase hex, everything else (U+2028, U+2029, "<", "&", bytes
// of invalid UTF-8) as it is.
func hashAppendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
