//go:build js && wasm

package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"syscall/js"
)

// toJS converts a Go result: nil is undefined, a raw value passes as it
// is, anything else goes through JSON.
func toJS(v any) (any, error) {
	switch v := v.(type) {
	case nil:
		return js.Undefined(), nil
	case raw:
		return v.v, nil
	case js.Value:
		return v, nil
	case string, bool, int, float64:
		return v, nil
	case packed:
		return v.toJS()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return js.Global().Get("JSON").Call("parse", string(b)), nil
}

// toJS parses the answer's JSON with a reviver that puts each vector in
// place of its reference, from one Float32Array of them all.
func (p packed) toJS() (any, error) {
	b, err := json.Marshal(p.v)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, v := range p.vs.list {
		n += len(v)
	}
	flat := make([]byte, 0, 4*n)
	offsets := make([]any, 0, len(p.vs.list)+1)
	offsets = append(offsets, 0)
	for _, v := range p.vs.list {
		for _, f := range v {
			flat = binary.LittleEndian.AppendUint32(flat, math.Float32bits(f))
		}
		offsets = append(offsets, len(flat)/4)
	}
	all := js.Global().Get("Float32Array").New(uint8Array(flat).Get("buffer"))
	reviver := js.Global().Get("Function").New("all", "offsets",
		`return (key, value) => key === "vector" && value !== null && typeof value === "object" && "\u0000v" in value
			? Array.from(all.subarray(offsets[value["\u0000v"]], offsets[value["\u0000v"] + 1])) : value;`)
	return js.Global().Get("JSON").Call("parse", string(b), reviver.Invoke(all, js.ValueOf(offsets))), nil
}

// fromJSON decodes a JavaScript value through JSON into v. undefined and
// null leave v as it is.
func fromJSON(val js.Value, v any) error {
	if val.IsUndefined() || val.IsNull() {
		return nil
	}
	s := js.Global().Get("JSON").Call("stringify", val)
	if s.IsUndefined() {
		return nil
	}
	return json.Unmarshal([]byte(s.String()), v)
}

// str is args[i] as a string, "" when missing or not a string.
func str(args []js.Value, i int) string {
	if i < len(args) && args[i].Type() == js.TypeString {
		return args[i].String()
	}
	return ""
}

// num is args[i] as an int, def when missing or not a number.
func num(args []js.Value, i, def int) int {
	if i < len(args) && args[i].Type() == js.TypeNumber {
		return args[i].Int()
	}
	return def
}

// arg is args[i], undefined when missing.
func arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

// bytesOf reads a Uint8Array, an ArrayBuffer, a typed array or a string.
func bytesOf(v js.Value) ([]byte, error) {
	switch v.Type() {
	case js.TypeString:
		return []byte(v.String()), nil
	case js.TypeObject:
		u8 := js.Global().Get("Uint8Array")
		if kind := tag(v); kind == "ArrayBuffer" {
			v = u8.New(v)
		} else if kind != "Uint8Array" {
			buf := prop(v, "buffer")
			if tag(buf) != "ArrayBuffer" {
				return nil, errors.New("folio: want bytes (a Uint8Array, an ArrayBuffer or a string)")
			}
			v = u8.New(buf, prop(v, "byteOffset"), prop(v, "byteLength"))
		}
		out := make([]byte, prop(v, "byteLength").Int())
		js.CopyBytesToGo(out, v)
		return out, nil
	case js.TypeUndefined, js.TypeNull:
		return []byte{}, nil
	}
	return nil, fmt.Errorf("folio: want bytes, got %s", v.Type())
}

// uint8Array copies b into a new Uint8Array.
func uint8Array(b []byte) js.Value {
	out := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(out, b)
	return out
}
