package core

import (
	"encoding/json"
	"fmt"
)

// jsonTestCodec is the JSON IndexCodec of core's tests (core cannot import
// the real codecs). It writes Vectra's shapes with encoding/json and keeps a
// nil Indexed apart from an empty one. ext chooses the extension (".json"
// when empty); ".pb" makes a protobuf-named folder whose files are JSON,
// which is all the engine cares about.
type jsonTestCodec struct{ ext string }

var _ IndexCodec = jsonTestCodec{}

type jsonTestItem struct {
	ID           string         `json:"id"`
	Metadata     map[string]any `json:"metadata"`
	Vector       []float32      `json:"vector"`
	Norm         float64        `json:"norm"`
	MetadataFile string         `json:"metadataFile,omitempty"`
}

type jsonTestConfig struct {
	Indexed *[]string `json:"indexed,omitempty"`
}

type jsonTestData struct {
	Version        int            `json:"version"`
	MetadataConfig jsonTestConfig `json:"metadata_config"`
	Items          []jsonTestItem `json:"items"`
}

type jsonTestCatalog struct {
	Version   int               `json:"version"`
	Count     int               `json:"count"`
	URIToID   map[string]string `json:"uriToId"`
	IDToURI   map[string]string `json:"idToUri"`
	URIToHash map[string]string `json:"uriToHash,omitempty"`
}

func (c jsonTestCodec) Extension() string {
	if c.ext == "" {
		return ".json"
	}
	return c.ext
}

func (jsonTestCodec) SerializeIndex(d IndexData) ([]byte, error) {
	out := jsonTestData{Version: d.Version, Items: make([]jsonTestItem, len(d.Items))}
	if d.MetadataConfig.Indexed != nil {
		out.MetadataConfig.Indexed = &d.MetadataConfig.Indexed
	}
	for i, it := range d.Items {
		out.Items[i] = jsonTestItem{ID: it.ID, Metadata: it.Metadata, Vector: it.Vector, Norm: it.Norm, MetadataFile: it.MetadataFile}
	}
	return json.Marshal(out)
}

func (jsonTestCodec) DeserializeIndex(b []byte) (IndexData, error) {
	var in jsonTestData
	if err := json.Unmarshal(b, &in); err != nil {
		return IndexData{}, fmt.Errorf("test codec: %w: %w", ErrCorrupt, err)
	}
	d := IndexData{Version: in.Version, Items: make([]IndexItem, len(in.Items))}
	if in.MetadataConfig.Indexed != nil {
		d.MetadataConfig.Indexed = *in.MetadataConfig.Indexed
	}
	for i, it := range in.Items {
		v := it.Vector
		if v == nil {
			v = []float32{}
		}
		d.Items[i] = IndexItem{ID: it.ID, Metadata: it.Metadata, Vector: v, Norm: it.Norm, MetadataFile: it.MetadataFile}
	}
	return d, nil
}

func (jsonTestCodec) SerializeCatalog(c DocumentCatalog) ([]byte, error) {
	return json.Marshal(jsonTestCatalog(c))
}

func (jsonTestCodec) DeserializeCatalog(b []byte) (DocumentCatalog, error) {
	var c jsonTestCatalog
	if err := json.Unmarshal(b, &c); err != nil {
		return DocumentCatalog{}, fmt.Errorf("test codec: %w: %w", ErrCorrupt, err)
	}
	return DocumentCatalog(c), nil
}

func (jsonTestCodec) SerializeMetadata(m Metadata) ([]byte, error) { return json.Marshal(m) }

func (jsonTestCodec) DeserializeMetadata(b []byte) (Metadata, error) {
	var m Metadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("test codec: %w: %w", ErrCorrupt, err)
	}
	return m, nil
}
