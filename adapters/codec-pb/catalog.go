package codecpb

import (
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/foliovec/folio/core"
	"google.golang.org/protobuf/encoding/protowire"
)

// SerializeCatalog encodes c as a DocumentCatalog message: version and
// count (omitted when 0), then uri_to_id, id_to_uri and, only when
// c.URIToHash is not nil, uri_to_hash, each map in sorted key order.
//
// It fails with an error wrapping core.ErrInvalidArgument on a version or
// count outside 0…4294967295, or a string that is not valid UTF-8.
func (*ProtobufCodec) SerializeCatalog(c core.DocumentCatalog) ([]byte, error) {
	const op = "encode catalog"
	for _, v := range []struct {
		name string
		n    int
	}{{"version", c.Version}, {"count", c.Count}} {
		if v.n < 0 || uint64(v.n) > math.MaxUint32 {
			return nil, invalid(op, fmt.Sprintf("%s %d is outside 0…4294967295", v.name, v.n))
		}
	}
	var b []byte
	if c.Version != 0 {
		b = protowire.AppendTag(b, fieldCatalogVersion, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(c.Version))
	}
	if c.Count != 0 {
		b = protowire.AppendTag(b, fieldCatalogCount, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(c.Count))
	}
	var err error
	for _, m := range []struct {
		num  protowire.Number
		name string
		m    map[string]string
	}{
		{fieldCatalogURIToID, "uriToId", c.URIToID},
		{fieldCatalogIDToURI, "idToUri", c.IDToURI},
		{fieldCatalogURIToHash, "uriToHash", c.URIToHash},
	} {
		if b, err = appendStringMap(b, m.num, m.m); err != nil {
			return nil, invalid(op, fmt.Sprintf("%s: %v", m.name, err))
		}
	}
	return b, nil
}

// appendStringMap appends the entries of a map<string, string> field in
// sorted key order.
func appendStringMap(b []byte, num protowire.Number, m map[string]string) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := m[k]
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return nil, fmt.Errorf("entry %q: %q is not valid UTF-8", k, v)
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(protowire.SizeTag(fieldMapKey)+protowire.SizeBytes(len(k))+
			protowire.SizeTag(fieldMapValue)+protowire.SizeBytes(len(v))))
		b = protowire.AppendTag(b, fieldMapKey, protowire.BytesType)
		b = protowire.AppendString(b, k)
		b = protowire.AppendTag(b, fieldMapValue, protowire.BytesType)
		b = protowire.AppendString(b, v)
	}
	return b, nil
}

// DeserializeCatalog decodes a DocumentCatalog message. URIToID and
// IDToURI are never nil; URIToHash is nil when the message has no
// uri_to_hash entry (protobuf cannot tell an empty map from none, and
// Vectra reads both as absent).
func (*ProtobufCodec) DeserializeCatalog(b []byte) (core.DocumentCatalog, error) {
	const op = "decode catalog"
	c := core.DocumentCatalog{URIToID: map[string]string{}, IDToURI: map[string]string{}}
	for len(b) > 0 {
		f, n, err := nextField(b)
		if err != nil {
			return core.DocumentCatalog{}, corrupt(op, err)
		}
		b = b[n:]
		var m *map[string]string
		switch {
		case f.is(fieldCatalogVersion, protowire.VarintType):
			c.Version = int(uint32(f.u))
		case f.is(fieldCatalogCount, protowire.VarintType):
			c.Count = int(uint32(f.u))
		case f.is(fieldCatalogURIToID, protowire.BytesType):
			m = &c.URIToID
		case f.is(fieldCatalogIDToURI, protowire.BytesType):
			m = &c.IDToURI
		case f.is(fieldCatalogURIToHash, protowire.BytesType):
			m = &c.URIToHash
		}
		if m == nil {
			continue
		}
		k, v, err := stringEntry(f.b)
		if err != nil {
			return core.DocumentCatalog{}, corrupt(fmt.Sprintf("%s: field %d", op, f.num), err)
		}
		if *m == nil {
			*m = map[string]string{}
		}
		(*m)[k] = v
	}
	return c, nil
}

// stringEntry decodes one map<string, string> entry; a missing key or
// value is "".
func stringEntry(b []byte) (key, value string, err error) {
	for len(b) > 0 {
		f, n, err := nextField(b)
		if err != nil {
			return "", "", err
		}
		b = b[n:]
		switch {
		case f.is(fieldMapKey, protowire.BytesType):
			key = text(f.b)
		case f.is(fieldMapValue, protowire.BytesType):
			value = text(f.b)
		}
	}
	return key, value, nil
}
