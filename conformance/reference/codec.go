package reference

import (
	"encoding/json"
	"fmt"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/jsvalue"
)

// Codec is a core.IndexCodec on encoding/json, with the extension ".json".
// Its files are not Vectra's format (Vectra's is codec-json's); it keeps
// every rule of codectest. Metadata numbers of
// any Go number type are written as the float64 JavaScript would hold and
// read back as float64; NaN and ±Inf cannot be written.
type Codec struct{}

var _ core.IndexCodec = Codec{}

type jsonItem struct {
	ID           string         `json:"id"`
	Metadata     map[string]any `json:"metadata"`
	Vector       []float32      `json:"vector"`
	Norm         float64        `json:"norm"`
	MetadataFile string         `json:"metadataFile,omitempty"`
}

type jsonConfig struct {
	Indexed *[]string `json:"indexed,omitempty"`
}

type jsonIndex struct {
	Version        int        `json:"version"`
	MetadataConfig jsonConfig `json:"metadata_config"`
	Items          []jsonItem `json:"items"`
}

type jsonCatalog struct {
	Version   int               `json:"version"`
	Count     int               `json:"count"`
	URIToID   map[string]string `json:"uriToId"`
	IDToURI   map[string]string `json:"idToUri"`
	URIToHash map[string]string `json:"uriToHash,omitempty"`
}

// Extension returns ".json".
func (Codec) Extension() string { return ".json" }

// SerializeIndex encodes an index file.
func (Codec) SerializeIndex(d core.IndexData) ([]byte, error) {
	ri := jsonIndex{Version: d.Version, Items: make([]jsonItem, len(d.Items))}
	if d.MetadataConfig.Indexed != nil {
		ri.MetadataConfig.Indexed = &d.MetadataConfig.Indexed
	}
	for i, it := range d.Items {
		ri.Items[i] = jsonItem{ID: it.ID, Metadata: floats(it.Metadata), Vector: it.Vector, Norm: it.Norm, MetadataFile: it.MetadataFile}
	}
	return marshal(ri)
}

// DeserializeIndex decodes an index file.
func (Codec) DeserializeIndex(b []byte) (core.IndexData, error) {
	var ri jsonIndex
	if err := json.Unmarshal(b, &ri); err != nil {
		return core.IndexData{}, fmt.Errorf("reference: deserialize index: %w: %w", core.ErrCorrupt, err)
	}
	d := core.IndexData{Version: ri.Version}
	if ri.MetadataConfig.Indexed != nil {
		d.MetadataConfig.Indexed = *ri.MetadataConfig.Indexed
	}
	for _, it := range ri.Items {
		d.Items = append(d.Items, core.IndexItem{ID: it.ID, Metadata: it.Metadata, Vector: it.Vector, Norm: it.Norm, MetadataFile: it.MetadataFile})
	}
	return d, nil
}

// SerializeCatalog encodes a document catalog.
func (Codec) SerializeCatalog(c core.DocumentCatalog) ([]byte, error) {
	return marshal(jsonCatalog(c))
}

// DeserializeCatalog decodes a document catalog.
func (Codec) DeserializeCatalog(b []byte) (core.DocumentCatalog, error) {
	var rc jsonCatalog
	if err := json.Unmarshal(b, &rc); err != nil {
		return core.DocumentCatalog{}, fmt.Errorf("reference: deserialize catalog: %w: %w", core.ErrCorrupt, err)
	}
	return core.DocumentCatalog(rc), nil
}

// SerializeMetadata encodes a metadata file.
func (Codec) SerializeMetadata(m core.Metadata) ([]byte, error) {
	return marshal(floats(m))
}

// DeserializeMetadata decodes a metadata file.
func (Codec) DeserializeMetadata(b []byte) (core.Metadata, error) {
	var m core.Metadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("reference: deserialize metadata: %w: %w", core.ErrCorrupt, err)
	}
	return m, nil
}

func marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("reference: serialize: %w: %w", core.ErrInvalidArgument, err)
	}
	return b, nil
}

// floats returns m with every Go number as the float64 it reads back as.
func floats(m core.Metadata) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if n, ok := jsvalue.Number(v); ok {
			v = n
		}
		out[k] = v
	}
	return out
}
