package codecpb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/jsvalue"
)

// SerializeMetadata encodes side-car and document metadata as the JSON
// text JavaScript's JSON.stringify writes (Vectra writes these .pb files as
// JSON): no spaces, numbers in JavaScript's format, only `"`, `\` and
// control characters escaped. Object keys are sorted; Vectra writes them in
// insertion order, which a Go map does not keep. A nil m is `{}`.
//
// It fails with an error wrapping core.ErrInvalidArgument on a NaN or
// infinite number, a string that is not valid UTF-8, or values nested more
// than 10100 deep (a cycle).
func (*ProtobufCodec) SerializeMetadata(m core.Metadata) ([]byte, error) {
	b, err := appendJSON(nil, map[string]any(m), 0)
	if err != nil {
		return nil, invalid("encode metadata", err.Error())
	}
	return b, nil
}

// DeserializeMetadata parses JSON text holding an object. Numbers read as
// float64, arrays as []any, objects as map[string]any.
func (*ProtobufCodec) DeserializeMetadata(b []byte) (core.Metadata, error) {
	const op = "decode metadata"
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, corrupt(op, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, corrupt(op, fmt.Errorf("got JSON %s, want an object", jsonKind(v)))
	}
	return core.Metadata(m), nil
}

// jsonKind names the JSON type of a value decoded by encoding/json.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return fmt.Sprintf("%T", v)
}

// maxJSONDepth bounds nesting, so a value that contains itself fails
// rather than recursing forever. It is above encoding/json's own limit
// (10000), so whatever DeserializeMetadata returns can be written again.
const maxJSONDepth = 10100

var errTooDeep = errors.New("values nested more than 10100 deep")

// appendJSON appends v as JSON.stringify would write it.
func appendJSON(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxJSONDepth {
		return nil, errTooDeep
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return jsvalue.AppendQuote(b, x), nil
	case bool:
		if x {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case map[string]any:
		return appendJSONObject(b, x, depth)
	case core.Metadata:
		return appendJSONObject(b, x, depth)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	if f, ok := jsvalue.Number(v); ok {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("number %v is not finite", f)
		}
		return jsvalue.AppendJSONNumber(b, f), nil
	}
	return appendJSONReflect(b, reflect.ValueOf(v), depth)
}

// appendJSONObject appends an object with its keys in sorted order.
func appendJSONObject(b []byte, m map[string]any, depth int) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsvalue.AppendQuote(b, k)
		b = append(b, ':')
		var err error
		if b, err = appendJSON(b, m[k], depth+1); err != nil {
			if depth == 0 { // name the top-level key only: deep values would repeat it thousands of times
				err = fmt.Errorf("%q: %w", k, err)
			}
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendJSONReflect appends the other slices, arrays, string-keyed maps and
// pointers a Go caller may put in metadata; anything else goes through
// encoding/json.
func appendJSONReflect(b []byte, rv reflect.Value, depth int) ([]byte, error) {
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return append(b, "null"...), nil
		}
		elems := make([]any, rv.Len())
		for i := range elems {
			elems[i] = rv.Index(i).Interface()
		}
		return appendJSON(b, elems, depth)
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		if rv.IsNil() {
			return append(b, "null"...), nil
		}
		m := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			m[it.Key().String()] = it.Value().Interface()
		}
		return appendJSONObject(b, m, depth)
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return append(b, "null"...), nil
		}
		return appendJSON(b, rv.Elem().Interface(), depth+1)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rv.Interface()); err != nil {
		return nil, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}
