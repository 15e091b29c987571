package codecpb

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// valueKind is the case of a MetadataValue oneof.
type valueKind uint8

const (
	kindNone valueKind = iota
	kindString
	kindNumber
	kindBool
)

// pbValue is a metadata value as it goes on the wire: one case of the
// MetadataValue oneof.
type pbValue struct {
	kind valueKind
	str  string
	num  float64
	b    bool
}

// toPBValue converts a Go metadata value the way Vectra's writer does:
// strings, numbers and booleans keep their case; any other value becomes
// the string JavaScript's String() makes of it. ok is false for a number
// that is NaN or ±Inf.
func toPBValue(v any) (pv pbValue, ok bool) {
	switch x := v.(type) {
	case string:
		return pbValue{kind: kindString, str: x}, true
	case bool:
		return pbValue{kind: kindBool, b: x}, true
	}
	if f, isNum := number(v); isNum {
		return pbValue{kind: kindNumber, num: f}, !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return pbValue{kind: kindString, str: jsString(v)}, true
}

// size is the encoded size of the MetadataValue message.
func (v pbValue) size() int {
	switch v.kind {
	case kindString:
		return protowire.SizeTag(fieldValueString) + protowire.SizeBytes(len(v.str))
	case kindNumber:
		return protowire.SizeTag(fieldValueNumber) + protowire.SizeFixed64()
	case kindBool:
		return protowire.SizeTag(fieldValueBool) + protowire.SizeVarint(1)
	}
	return 0
}

// appendTo appends the MetadataValue message's fields (without a length
// prefix). The set case is written even when its value is zero.
func (v pbValue) appendTo(b []byte) []byte {
	switch v.kind {
	case kindString:
		b = protowire.AppendTag(b, fieldValueString, protowire.BytesType)
		return protowire.AppendString(b, v.str)
	case kindNumber:
		b = protowire.AppendTag(b, fieldValueNumber, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(v.num))
	case kindBool:
		b = protowire.AppendTag(b, fieldValueBool, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(v.b))
	}
	return b
}

// readValue is a MetadataValue being decoded. Each case keeps its last
// value, and kind is the case set last: a message that sets several cases
// (never written by Vectra, but legal on the wire) resolves as Vectra's
// reader does.
type readValue struct {
	kind valueKind
	str  any // the boxed string case; nil when unset
	num  float64
	b    bool
}

// resolve applies Vectra's read rule: a non-empty string wins, then a
// number other than 0 and NaN, then true; otherwise the case decides
// ("" for a string, 0 for a number, false for a bool), and a value with no
// case set is "". The decoder has already turned ±Inf into 0 (Vectra would
// keep it; Folio cannot write it back).
func (v *readValue) resolve(in *interner) any {
	if s, ok := v.str.(string); ok && s != "" {
		return v.str
	}
	if v.num != 0 && !math.IsNaN(v.num) {
		return in.number(v.num)
	}
	if v.b {
		return true
	}
	switch v.kind {
	case kindNumber:
		return float64(0)
	case kindBool:
		return false
	}
	return ""
}

// number reports whether v is a Go number, and its float64 value.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int8:
		return float64(n), true
	case int16:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint8:
		return float64(n), true
	case uint16:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// jsString renders v as JavaScript's String(v) would render the value
// JSON.parse gives for it: nil is "null", a slice is its elements joined
// with "," (nil elements empty), a map or struct is "[object Object]",
// numbers use JavaScript's number formatting.
func jsString(v any) string {
	if v == nil {
		return "null"
	}
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	if f, ok := number(v); ok {
		return jsNumber(f)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		parts := make([]string, rv.Len())
		for i := range parts {
			e := rv.Index(i)
			if (e.Kind() == reflect.Interface || e.Kind() == reflect.Pointer) && e.IsNil() {
				continue
			}
			parts[i] = jsString(e.Interface())
		}
		return strings.Join(parts, ",")
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return "null"
		}
		return jsString(rv.Elem().Interface())
	}
	return "[object Object]"
}

// jsNumber formats f as JavaScript's Number.prototype.toString does:
// the shortest decimal that reads back as f, exponent form below 1e-6 and
// from 1e21 up, "0" for -0.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return string(appendJSNumber(nil, f))
}

// appendJSNumber appends a finite f in JavaScript's number format (the
// same rules encoding/json follows for float64).
func appendJSNumber(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0')
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 → 1e-7, as JavaScript writes it.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
