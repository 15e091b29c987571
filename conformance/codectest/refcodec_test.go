package codectest_test

import (
	"encoding/json"
	"fmt"

	"github.com/foliovec/folio/conformance/codectest"
	"github.com/foliovec/folio/core"
)

// refCodec is a small, correct codec on encoding/json, the baseline the
// broken codecs in codectest_test.go start from.
type refCodec struct{}

var _ core.IndexCodec = refCodec{}

// refCaps is what refCodec claims.
var refCaps = codectest.Capabilities{
	Float32Vectors:                 true,
	PreservesNonScalarMetadata:     true,
	MetadataFilesPreserveNonScalar: true,
	KeepsEmptyIndexed:              true,
	KeepsEmptyURIToHash:            false, // omitempty drops an empty map
	RejectsNonFinite:               true,
	MetadataFilesRejectNonFinite:   true,
	TruncatedIndexFails:            true,
	TruncatedMetadataFails:         true,
	Deterministic:                  true, // encoding/json sorts map keys
}

type refItem struct {
	ID           string         `json:"id"`
	Metadata     map[string]any `json:"metadata"`
	Vector       []float32      `json:"vector"`
	Norm         float64        `json:"norm"`
	MetadataFile string         `json:"metadataFile,omitempty"`
}

type refConfig struct {
	Indexed *[]string `json:"indexed,omitempty"`
}

type refIndex struct {
	Version        int       `json:"version"`
	MetadataConfig refConfig `json:"metadata_config"`
	Items          []refItem `json:"items"`
}

type refCatalog struct {
	Version   int               `json:"version"`
	Count     int               `json:"count"`
	URIToID   map[string]string `json:"uriToId"`
	IDToURI   map[string]string `json:"idToUri"`
	URIToHash map[string]string `json:"uriToHash,omitempty"`
}

func (refCodec) Extension() string { return ".json" }

func (refCodec) SerializeIndex(d core.IndexData) ([]byte, error) {
	ri := refIndex{Version: d.Version, Items: make([]refItem, len(d.Items))}
	if d.MetadataConfig.Indexed != nil {
		ri.MetadataConfig.Indexed = &d.MetadataConfig.Indexed
	}
	for i, it := range d.Items {
		ri.Items[i] = refItem{ID: it.ID, Metadata: floats(it.Metadata), Vector: it.Vector, Norm: it.Norm, MetadataFile: it.MetadataFile}
	}
	return marshal(ri)
}

func (refCodec) DeserializeIndex(b []byte) (core.IndexData, error) {
	var ri refIndex
	if err := json.Unmarshal(b, &ri); err != nil {
		return core.IndexData{}, fmt.Errorf("ref: deserialize index: %w: %w", core.ErrCorrupt, err)
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

func (refCodec) SerializeCatalog(c core.DocumentCatalog) ([]byte, error) {
	return marshal(refCatalog(c))
}

func (refCodec) DeserializeCatalog(b []byte) (core.DocumentCatalog, error) {
	var rc refCatalog
	if err := json.Unmarshal(b, &rc); err != nil {
		return core.DocumentCatalog{}, fmt.Errorf("ref: deserialize catalog: %w: %w", core.ErrCorrupt, err)
	}
	return core.DocumentCatalog(rc), nil
}

func (refCodec) SerializeMetadata(m core.Metadata) ([]byte, error) {
	return marshal(floats(m))
}

func (refCodec) DeserializeMetadata(b []byte) (core.Metadata, error) {
	var m core.Metadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("ref: deserialize metadata: %w: %w", core.ErrCorrupt, err)
	}
	return m, nil
}

func marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("ref: serialize: %w: %w", core.ErrInvalidArgument, err)
	}
	return b, nil
}

// floats turns every Go number in m into float64, so a float32 is written
// as the float64 it reads back as.
func floats(m core.Metadata) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch n := v.(type) {
		case float32:
			v = float64(n)
		case int:
			v = float64(n)
		case int8:
			v = float64(n)
		case int16:
			v = float64(n)
		case int32:
			v = float64(n)
		case int64:
			v = float64(n)
		case uint:
			v = float64(n)
		case uint8:
			v = float64(n)
		case uint16:
			v = float64(n)
		case uint32:
			v = float64(n)
		case uint64:
			v = float64(n)
		}
		out[k] = v
	}
	return out
}
