package codectest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"

	"github.com/foliovec/folio/core"
)

// The Check…Bytes functions state what a decoder does with any bytes at
// all; a codec's fuzz targets call them on every input. Each returns how c
// breaks the rule, or nil:
//
//   - decoding never panics, and an error wraps core.ErrCorrupt;
//   - a decoded value encodes, the encoding decodes to the same value (nil
//     and empty alike where the file forms do not tell them apart: items,
//     vectors, metadata, uriToId and idToUri), and encoding that again
//     gives the same bytes.

// CheckIndexBytes checks DeserializeIndex on b, and, where c has it,
// that DeserializeIndexArena decodes b as DeserializeIndex does (both fail,
// or both return the same value with an arena that keeps its promise).
// It returns the decoded index and whether b decoded.
func CheckIndexBytes(c core.IndexCodec, b []byte) (core.IndexData, bool, error) {
	if ad, ok := c.(core.VectorArenaDecoder); ok {
		d, err := decodeIndex(c, b)
		da, arena, errA := arenaDecode(ad, b)
		switch {
		case (err == nil) != (errA == nil):
			return d, false, fmt.Errorf("DeserializeIndex error %v, DeserializeIndexArena error %v", err, errA)
		case !reflect.DeepEqual(d, da):
			return d, false, fmt.Errorf("DeserializeIndexArena = %#v, DeserializeIndex = %#v", da, d)
		case errA == nil:
			if err := CheckArena(da.Items, arena); err != nil {
				return d, false, err
			}
		}
	}
	return checkBytes(b, func(b []byte) (core.IndexData, error) { return decodeIndex(c, b) },
		func(d core.IndexData) ([]byte, error) { return encodeIndex(c, d) }, normalIndex)
}

// CheckCatalogBytes checks DeserializeCatalog on b.
func CheckCatalogBytes(c core.IndexCodec, b []byte) error {
	_, _, err := checkBytes(b, func(b []byte) (core.DocumentCatalog, error) { return decodeCatalog(c, b) },
		func(d core.DocumentCatalog) ([]byte, error) { return encodeCatalog(c, d) }, normalCatalog)
	return err
}

// CheckMetadataBytes checks DeserializeMetadata on b.
func CheckMetadataBytes(c core.IndexCodec, b []byte) error {
	_, _, err := checkBytes(b, func(b []byte) (core.Metadata, error) { return decodeMetadata(c, b) },
		func(m core.Metadata) ([]byte, error) { return encodeMetadata(c, m) }, normalMetadata)
	return err
}

func checkBytes[T any](b []byte, decode func([]byte) (T, error), encode func(T) ([]byte, error), normal func(T) T) (T, bool, error) {
	v, err := decode(b)
	if err != nil {
		if !errors.Is(err, core.ErrCorrupt) {
			return v, false, fmt.Errorf("error %w does not wrap core.ErrCorrupt", err)
		}
		return v, false, nil
	}
	out, err := encode(v)
	if err != nil {
		return v, true, fmt.Errorf("decoded %#v does not encode: %w", v, err)
	}
	again, err := decode(out)
	if err != nil {
		return v, true, fmt.Errorf("re-encoded value does not decode: %w\n%q", err, out)
	}
	if !reflect.DeepEqual(normal(v), normal(again)) {
		return v, true, fmt.Errorf("a round trip changed the value:\n%#v\n%#v", v, again)
	}
	if out2, err := encode(again); err != nil || !bytes.Equal(out, out2) {
		return v, true, fmt.Errorf("encoding again is not stable (%v):\n%q\n%q", err, out, out2)
	}
	return v, true, nil
}

func normalIndex(d core.IndexData) core.IndexData {
	items := make([]core.IndexItem, len(d.Items))
	for i, it := range d.Items {
		it.Metadata = normalMetadata(it.Metadata)
		if it.Vector == nil {
			it.Vector = []float32{}
		}
		items[i] = it
	}
	d.Items = items
	return d
}

func normalCatalog(c core.DocumentCatalog) core.DocumentCatalog {
	if c.URIToID == nil {
		c.URIToID = map[string]string{}
	}
	if c.IDToURI == nil {
		c.IDToURI = map[string]string{}
	}
	return c
}

func normalMetadata(m core.Metadata) core.Metadata {
	if m == nil {
		return core.Metadata{}
	}
	return m
}
