package codecpb

import (
	"math"

	"github.com/foliovec/folio/core/jsvalue"
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
	if f, isNum := jsvalue.Number(v); isNum {
		return pbValue{kind: kindNumber, num: f}, !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return pbValue{kind: kindString, str: jsvalue.String(v)}, true
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
