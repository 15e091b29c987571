package codecjson

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/foliovec/folio/core"
	"github.com/go-json-experiment/json/jsontext"
)

// decodeIndex reads an index file, and returns the array its vectors
// live in when they all have one length (see decodeItems), else nil.
// Unknown keys are skipped; missing keys leave their zero value. null
// reads as: no items, no metadata config, no metadata, an empty vector, a
// 0 norm, no metadata file; null inside a vector reads as 0 (JavaScript
// computes null*x as 0).
func decodeIndex(src []byte) (core.IndexData, []float32, error) {
	d := newDecoder(src)
	var data core.IndexData
	arena := []float32{}
	itemsLast := false
	err := readTopFields(d, func(name string) error {
		switch name {
		case "version":
			v, err := readInt(d)
			data.Version = v
			return err
		case "metadata_config":
			return readMetadataConfig(d, &data.MetadataConfig)
		case "items":
			if pieces, ok := splitItems(src, int(d.InputOffset())); ok {
				if items, a, err := decodeItems(pieces); err == nil {
					data.Items, arena, itemsLast = items, a, true
					return errItemsLast
				}
			}
			pieces, err := collectItems(d, src)
			if err != nil {
				return err
			}
			data.Items, arena, err = decodeItems(pieces)
			return err
		}
		return d.SkipValue()
	})
	if itemsLast {
		err = nil // splitItems checked that nothing but "]}" follows the items
	} else if err == nil {
		err = readEnd(d)
	}
	if err != nil {
		return core.IndexData{}, nil, err
	}
	return data, arena, nil
}

// errItemsLast stops reading the top-level object once the items, its
// last member, have been decoded from their pieces.
var errItemsLast = errors.New("items decoded")

// readFields reads an object (or null, read as an empty object), calling
// field for each name with the decoder positioned at its value.
func readFields(d *jsontext.Decoder, field func(name string) error) error {
	if d.PeekKind() == 'n' {
		_, err := d.ReadToken()
		return err
	}
	if err := readDelim(d, '{'); err != nil {
		return err
	}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String()
		if err := field(name); err != nil {
			return fmt.Errorf("%q: %w", name, err)
		}
	}
	return readDelim(d, '}')
}

// readTopFields is readFields for the top-level value, which must be an
// object.
func readTopFields(d *jsontext.Decoder, field func(name string) error) error {
	if k := d.PeekKind(); k != '{' {
		return fmt.Errorf("got %s, want an object", kindName(k))
	}
	return readFields(d, field)
}

// readEnd checks that nothing but white space follows the value.
func readEnd(d *jsontext.Decoder) error {
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("more than one value")
		}
		return fmt.Errorf("after the value: %w", err)
	}
	return nil
}

// readInt reads an integer number within ±2^53 (or null, read as 0).
func readInt(d *jsontext.Decoder) (int, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return 0, err
	}
	switch tok.Kind() {
	case 'n':
		return 0, nil
	case '0':
		f, err := readNumber(tok)
		if err != nil {
			return 0, err
		}
		if f != math.Trunc(f) || math.Abs(f) > 1<<53 || f > math.MaxInt || f < math.MinInt {
			return 0, fmt.Errorf("number %s is not an integer", tok.String())
		}
		return int(f), nil
	}
	return 0, fmt.Errorf("got %s, want a number", kindName(tok.Kind()))
}

// readString reads a string (or null, read as "").
func readString(d *jsontext.Decoder) (string, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return "", err
	}
	switch tok.Kind() {
	case 'n':
		return "", nil
	case '"':
		return tok.String(), nil
	}
	return "", fmt.Errorf("got %s, want a string", kindName(tok.Kind()))
}

// readFloat reads a number (or null, read as 0, as JavaScript computes
// with it).
func readFloat(d *jsontext.Decoder) (float64, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return 0, err
	}
	switch tok.Kind() {
	case 'n':
		return 0, nil
	case '0':
		return readNumber(tok)
	}
	return 0, fmt.Errorf("got %s, want a number", kindName(tok.Kind()))
}

func readMetadataConfig(d *jsontext.Decoder, c *core.MetadataConfig) error {
	return readFields(d, func(name string) error {
		if name != "indexed" {
			return d.SkipValue()
		}
		if d.PeekKind() == 'n' {
			c.Indexed = nil
			_, err := d.ReadToken()
			return err
		}
		if err := readDelim(d, '['); err != nil {
			return err
		}
		c.Indexed = []string{}
		for d.PeekKind() != ']' {
			tok, err := d.ReadToken()
			if err != nil {
				return err
			}
			if tok.Kind() != '"' {
				return fmt.Errorf("got %s, want a string", kindName(tok.Kind()))
			}
			c.Indexed = append(c.Indexed, tok.String())
		}
		return readDelim(d, ']')
	})
}

// readMetadata reads a metadata object (or null, read as nil).
func readMetadata(d *jsontext.Decoder) (core.Metadata, error) {
	if d.PeekKind() == 'n' {
		_, err := d.ReadToken()
		return nil, err
	}
	m, err := readObject(d)
	return core.Metadata(m), err
}

// decodeCatalog reads a catalog file. A catalog without uriToHash (or
// with null) reads with a nil URIToHash.
func decodeCatalog(src []byte) (core.DocumentCatalog, error) {
	d := newDecoder(src)
	var c core.DocumentCatalog
	err := readTopFields(d, func(name string) error {
		var err error
		switch name {
		case "version":
			c.Version, err = readInt(d)
		case "count":
			c.Count, err = readInt(d)
		case "uriToId":
			c.URIToID, err = readStringMap(d)
		case "idToUri":
			c.IDToURI, err = readStringMap(d)
		case "uriToHash":
			c.URIToHash, err = readStringMap(d)
		default:
			err = d.SkipValue()
		}
		return err
	})
	if err == nil {
		err = readEnd(d)
	}
	if err != nil {
		return core.DocumentCatalog{}, err
	}
	return c, nil
}

// readStringMap reads an object of strings (or null, read as nil).
func readStringMap(d *jsontext.Decoder) (map[string]string, error) {
	if d.PeekKind() == 'n' {
		_, err := d.ReadToken()
		return nil, err
	}
	m := map[string]string{}
	err := readFields(d, func(name string) error {
		v, err := d.ReadToken()
		if err != nil {
			return err
		}
		if v.Kind() != '"' {
			return fmt.Errorf("got %s, want a string", kindName(v.Kind()))
		}
		m[name] = v.String()
		return nil
	})
	return m, err
}

// decodeMetadata reads a side-car or document metadata file: an object,
// or null (which JSON.stringify writes for a null metadata argument), read
// as nil.
func decodeMetadata(src []byte) (core.Metadata, error) {
	d := newDecoder(src)
	m, err := readMetadata(d)
	if err == nil {
		err = readEnd(d)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}
