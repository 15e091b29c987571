package codecjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/foliovec/folio/core"
	"github.com/go-json-experiment/json/jsontext"
)

// readValue reads any JSON value as JSON.parse would give it to Vectra:
// strings, float64 numbers, bools, nil for null, []any and map[string]any
// (a repeated key: the last one wins). A number beyond float64 range is
// corrupt, since it could not be written back.
func readValue(d *jsontext.Decoder) (any, error) {
	switch d.PeekKind() {
	case '{':
		return readObject(d)
	case '[':
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		a := []any{}
		for d.PeekKind() != ']' {
			v, err := readValue(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		return a, nil
	}
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '"':
		return tok.String(), nil
	case '0':
		return readNumber(tok)
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	}
	return nil, fmt.Errorf("unexpected %v", tok.Kind())
}

// readObject reads a JSON object into a non-nil map.
func readObject(d *jsontext.Decoder) (map[string]any, error) {
	if err := readDelim(d, '{'); err != nil {
		return nil, err
	}
	m := map[string]any{}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String() // before the next read voids tok
		v, err := readValue(d)
		if err != nil {
			return nil, err
		}
		m[name] = v
	}
	return m, readDelim(d, '}')
}

// readNumber is the float64 value of a number token; ±Inf (a number beyond
// float64 range) is an error.
func readNumber(tok jsontext.Token) (float64, error) {
	f, err := tok.Float()
	if err != nil || math.IsInf(f, 0) {
		return 0, fmt.Errorf("number %s out of range", tok.String())
	}
	return f, nil
}

// readDelim reads the token want ('{', '}', '[' or ']').
func readDelim(d *jsontext.Decoder, want jsontext.Kind) error {
	if k := d.PeekKind(); k != want {
		return fmt.Errorf("got %v, want %v", kindName(k), kindName(want))
	}
	_, err := d.ReadToken()
	return err
}

// kindName names a token kind for an error message.
func kindName(k jsontext.Kind) string {
	switch k {
	case 0:
		return "invalid JSON or end of input"
	case '"':
		return "string"
	case '0':
		return "number"
	case 'n':
		return "null"
	case 't', 'f':
		return "bool"
	}
	return fmt.Sprintf("%q", byte(k))
}

// appendMarshaled appends a value of a type appendValue does not know, as
// encoding/json marshals it, re-read and re-written so that its numbers,
// strings and key order follow the same rules as every other value.
func appendMarshaled(b []byte, v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("value of type %T: %w: %w", v, core.ErrInvalidArgument, err)
	}
	generic, err := readValue(newDecoder(raw))
	if err != nil {
		return nil, fmt.Errorf("value of type %T: %w: %w", v, core.ErrInvalidArgument, err)
	}
	return appendValue(b, generic)
}

// newDecoder reads src in place (a bytes.Buffer is not copied), accepting
// what JSON.parse accepts: a repeated key (the last wins) and, since
// Node.js reads files as UTF-8 with U+FFFD for invalid bytes, invalid UTF-8.
func newDecoder(src []byte) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewBuffer(src),
		jsontext.AllowDuplicateNames(true),
		jsontext.AllowInvalidUTF8(true))
}

// resetDecoder makes d read src afresh, with newDecoder's options.
func resetDecoder(d *jsontext.Decoder, src []byte) {
	d.Reset(bytes.NewBuffer(src),
		jsontext.AllowDuplicateNames(true),
		jsontext.AllowInvalidUTF8(true))
}
