package codecpb

import (
	"errors"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// field is one decoded field of a message: a varint, fixed32 or fixed64
// value in u, or the payload of a length-delimited field in b.
type field struct {
	num protowire.Number
	typ protowire.Type
	u   uint64
	b   []byte
}

// nextField consumes one field from the front of b and returns it with the
// number of bytes it took. Groups (a wire type Vectra never writes) are
// skipped whole, as unknown fields.
func nextField(b []byte) (field, int, error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return field{}, 0, protowire.ParseError(n)
	}
	f := field{num: num, typ: typ}
	var m int
	switch typ {
	case protowire.VarintType:
		f.u, m = protowire.ConsumeVarint(b[n:])
	case protowire.Fixed32Type:
		var v uint32
		v, m = protowire.ConsumeFixed32(b[n:])
		f.u = uint64(v)
	case protowire.Fixed64Type:
		f.u, m = protowire.ConsumeFixed64(b[n:])
	case protowire.BytesType:
		f.b, m = protowire.ConsumeBytes(b[n:])
	default:
		m = protowire.ConsumeFieldValue(num, typ, b[n:])
	}
	if m < 0 {
		return field{}, 0, protowire.ParseError(m)
	}
	return f, n + m, nil
}

// is reports whether f is field num with wire type typ. A known field
// number with another wire type is an unknown field, as in every protobuf
// runtime, and is skipped.
func (f field) is(num protowire.Number, typ protowire.Type) bool {
	return f.num == num && f.typ == typ
}

// errPackedLength: a packed float field whose length is not a multiple of 4.
var errPackedLength = errors.New("packed float field length is not a multiple of 4")

// text turns the bytes of a string field into a string, with U+FFFD in
// place of each sequence that is not valid UTF-8.
func text(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
