package manager

import (
	"encoding/json"

	"github.com/foliovec/folio/core"
)

// testCodec stores an index's values as encoding/json writes them, with the
// extension given (two extensions stand for two formats).
type testCodec struct{ ext string }

func (c testCodec) Extension() string { return c.ext }

func (testCodec) SerializeIndex(d core.IndexData) ([]byte, error) { return json.Marshal(d) }

func (testCodec) DeserializeIndex(b []byte) (d core.IndexData, err error) {
	return d, json.Unmarshal(b, &d)
}

func (testCodec) SerializeCatalog(c core.DocumentCatalog) ([]byte, error) { return json.Marshal(c) }

func (testCodec) DeserializeCatalog(b []byte) (c core.DocumentCatalog, err error) {
	return c, json.Unmarshal(b, &c)
}

func (testCodec) SerializeMetadata(m core.Metadata) ([]byte, error) { return json.Marshal(m) }

func (testCodec) DeserializeMetadata(b []byte) (m core.Metadata, err error) {
	return m, json.Unmarshal(b, &m)
}
