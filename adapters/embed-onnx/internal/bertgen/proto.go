package bertgen

import (
	"encoding/binary"
	"math"
)

// message is a protocol buffers message being written in the wire format.
// ONNX files are ModelProto messages; the few fields the generator needs are
// written by hand, so no generated code or protobuf dependency is needed.
type message []byte

func (m *message) tag(field, wireType int) {
	*m = binary.AppendUvarint(*m, uint64(field)<<3|uint64(wireType))
}

// int writes a varint field (int64, enum).
func (m *message) int(field int, v int64) {
	m.tag(field, 0)
	*m = binary.AppendUvarint(*m, uint64(v))
}

// bytes writes a length-delimited field.
func (m *message) bytes(field int, b []byte) {
	m.tag(field, 2)
	*m = binary.AppendUvarint(*m, uint64(len(b)))
	*m = append(*m, b...)
}

func (m *message) string(field int, s string) { m.bytes(field, []byte(s)) }

// float writes a fixed32 float field.
func (m *message) float(field int, v float32) {
	m.tag(field, 5)
	*m = binary.LittleEndian.AppendUint32(*m, math.Float32bits(v))
}

// ints writes a packed repeated int64 field.
func (m *message) ints(field int, vs []int64) {
	var packed []byte
	for _, v := range vs {
		packed = binary.AppendUvarint(packed, uint64(v))
	}
	m.bytes(field, packed)
}

// ONNX enum values used here (onnx.proto).
const (
	typeFloat   = 1 // TensorProto.FLOAT
	typeInt64   = 7 // TensorProto.INT64
	typeFloat16 = 10

	attrFloat = 1 // AttributeProto.FLOAT
	attrInt   = 2
	attrInts  = 7
)

// tensor is a TensorProto holding raw little-endian data.
func tensor(name string, dataType int, dims []int64, raw []byte) message {
	var t message
	for _, d := range dims {
		t.int(1, d) // dims
	}
	t.int(2, int64(dataType)) // data_type
	t.string(8, name)         // name
	t.bytes(9, raw)           // raw_data
	return t
}

func floatTensor(name string, dims []int64, data []float32) message {
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return tensor(name, typeFloat, dims, raw)
}

func int64Tensor(name string, dims []int64, data []int64) message {
	raw := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return tensor(name, typeInt64, dims, raw)
}

// attribute is an AttributeProto.
type attribute struct {
	name string
	kind int
	f    float32
	i    int64
	ints []int64
}

func (a attribute) encode() message {
	var m message
	m.string(1, a.name)
	switch a.kind {
	case attrFloat:
		m.float(2, a.f)
	case attrInt:
		m.int(3, a.i)
	case attrInts:
		m.ints(8, a.ints)
	}
	m.int(20, int64(a.kind)) // type
	return m
}

func intAttr(name string, v int64) attribute     { return attribute{name: name, kind: attrInt, i: v} }
func floatAttr(name string, v float32) attribute { return attribute{name: name, kind: attrFloat, f: v} }
func intsAttr(name string, v ...int64) attribute {
	return attribute{name: name, kind: attrInts, ints: v}
}

// node is a NodeProto.
func node(opType, name string, inputs, outputs []string, attrs ...attribute) message {
	var m message
	for _, in := range inputs {
		m.string(1, in)
	}
	for _, out := range outputs {
		m.string(2, out)
	}
	m.string(3, name)
	m.string(4, opType)
	for _, a := range attrs {
		m.bytes(5, a.encode())
	}
	return m
}

// valueInfo is a ValueInfoProto of a tensor; a dimension is either a fixed
// size (int64) or a symbolic name (string).
func valueInfo(name string, elemType int, dims ...any) message {
	var shape message
	for _, d := range dims {
		var dim message
		switch d := d.(type) {
		case int:
			dim.int(1, int64(d)) // dim_value
		case string:
			dim.string(2, d) // dim_param
		}
		shape.bytes(1, dim)
	}
	var tensorType message
	tensorType.int(1, int64(elemType)) // elem_type
	tensorType.bytes(2, shape)         // shape
	var typ message
	typ.bytes(1, tensorType) // tensor_type
	var m message
	m.string(1, name)
	m.bytes(2, typ)
	return m
}
