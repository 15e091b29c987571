package jsvalue

import (
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// IsSpace reports whether r is ECMAScript's StrWhiteSpaceChar: WhiteSpace
// (tab, vertical tab, form feed, U+FEFF and the Zs category) or a
// LineTerminator (\n, \r, U+2028, U+2029) — what String.prototype.trim
// and Number() skip.
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', '\u2028', '\u2029', '\ufeff':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

// String renders v as JavaScript's String(v) renders the value JSON.parse
// gives for it: a string as it is, booleans as "true"/"false", numbers as
// AppendNumber writes them, nil as "null", a slice as its elements joined
// with "," (nil elements empty), a map or struct as "[object Object]".
func String(v any) string {
	if v == nil {
		return "null"
	}
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	if f, ok := Number(v); ok {
		return FormatNumber(f)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String()
	case reflect.Bool:
		return strconv.FormatBool(rv.Bool())
	case reflect.Slice, reflect.Array:
		parts := make([]string, rv.Len())
		for i := range parts {
			e := rv.Index(i)
			if (e.Kind() == reflect.Interface || e.Kind() == reflect.Pointer) && e.IsNil() {
				continue
			}
			parts[i] = String(e.Interface())
		}
		return strings.Join(parts, ",")
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return "null"
		}
		return String(rv.Elem().Interface())
	}
	return "[object Object]"
}

// UTF16 is s as JavaScript holds it: UTF-16 code units (each invalid UTF-8
// byte one U+FFFD).
func UTF16(s string) []uint16 { return utf16.Encode([]rune(s)) }

// UTF16Len is len(UTF16(s)) — JavaScript's s.length — without building
// the units: two for a character outside the Basic Multilingual Plane, one
// for any other (an invalid byte counts as one U+FFFD).
func UTF16Len(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			n++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size - 1
	}
	return n
}

// Substring is JavaScript's units.substring(start, end) over code units
// from UTF16: NaN reads as 0, fractions are truncated, both ends are
// clamped to [0, len] and swapped when start > end. A surrogate half cut
// off its pair becomes U+FFFD in the Go string.
func Substring(units []uint16, start, end float64) string {
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

// Compare orders strings as JavaScript's default sort and its < operator
// do: by UTF-16 code units. It differs from Go's byte order only where a
// character above U+FFFF (a surrogate pair, 0xD800–0xDBFF first) meets one
// in U+E000–U+FFFF, and for invalid bytes, which compare as U+FFFD.
func Compare(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := firstUnit(ra), firstUnit(rb)
			if ua != ub {
				if ua < ub {
					return -1
				}
				return 1
			}
			// One high surrogate for both: the low surrogates order as
			// the code points do.
			if ra < rb {
				return -1
			}
			return 1
		}
		a, b = a[na:], b[nb:]
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// DecodeUTF8 returns b as a string under this package's policy for
// invalid UTF-8: each byte that is not part of a valid sequence becomes
// U+FFFD, so the result is always valid UTF-8. Valid input is returned
// unchanged (one copy). Readers of text files use it, so that a file read
// by any of them gives the same text, and so the same content hash.
func DecodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/8)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:size])
		}
		b = b[size:]
	}
	return sb.String()
}
