package manager

import (
	"context"
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

// testEmbeddings embeds a text as its length and a constant.
type testEmbeddings struct{}

func (testEmbeddings) MaxTokens() int { return 100 }

func (testEmbeddings) CreateEmbeddings(_ context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	out := make([][]float32, len(inputs))
	for i, in := range inputs {
		out[i] = []float32{float32(len(in)), 1}
	}
	return core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: out}, nil
}
