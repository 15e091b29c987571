package codectest_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio/conformance/codectest"
	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
)

// refCaps is what reference.Codec claims; it is the baseline the broken
// codecs in codectest_test.go start from.
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

func TestReferenceCodecPasses(t *testing.T) {
	codectest.Run(t, func(testing.TB) core.IndexCodec { return reference.Codec{} }, refCaps)
	if err := codectest.Check(t.Context(), func(testing.TB) core.IndexCodec { return reference.Codec{} }, refCaps); err != nil {
		t.Fatalf("Check(reference.Codec) = %v, want nil", err)
	}
}

// broken is reference.Codec with some methods replaced.
type broken struct {
	reference.Codec
	ext            func() string
	serializeIndex func(core.IndexData) ([]byte, error)
	deserializeIdx func([]byte) (core.IndexData, error)
	deserializeCat func([]byte) (core.DocumentCatalog, error)
	serializeMeta  func(core.Metadata) ([]byte, error)
	deserializeMet func([]byte) (core.Metadata, error)
}

func (b broken) Extension() string {
	if b.ext != nil {
		return b.ext()
	}
	return b.Codec.Extension()
}

func (b broken) SerializeIndex(d core.IndexData) ([]byte, error) {
	if b.serializeIndex != nil {
		return b.serializeIndex(d)
	}
	return b.Codec.SerializeIndex(d)
}

func (b broken) DeserializeIndex(p []byte) (core.IndexData, error) {
	if b.deserializeIdx != nil {
		return b.deserializeIdx(p)
	}
	return b.Codec.DeserializeIndex(p)
}

func (b broken) DeserializeCatalog(p []byte) (core.DocumentCatalog, error) {
	if b.deserializeCat != nil {
		return b.deserializeCat(p)
	}
	return b.Codec.DeserializeCatalog(p)
}

func (b broken) SerializeMetadata(m core.Metadata) ([]byte, error) {
	if b.serializeMeta != nil {
		return b.serializeMeta(m)
	}
	return b.Codec.SerializeMetadata(m)
}

func (b broken) DeserializeMetadata(p []byte) (core.Metadata, error) {
	if b.deserializeMet != nil {
		return b.deserializeMet(p)
	}
	return b.Codec.DeserializeMetadata(p)
}

var ref reference.Codec

// mapItems applies f to a copy of every item of d.
func mapItems(d core.IndexData, f func(*core.IndexItem)) core.IndexData {
	d.Items = slices.Clone(d.Items)
	for i := range d.Items {
		f(&d.Items[i])
	}
	return d
}

// breakage is a broken codec and the rule Check must report it breaks.
type breakage struct {
	name  string
	codec core.IndexCodec
	caps  func(c *codectest.Capabilities)
	rule  string // a case name Check must report
}

func TestCheckCatchesBrokenCodecs(t *testing.T) {
	tests := []breakage{
		{
			name:  "extension without a dot",
			codec: broken{ext: func() string { return "json" }},
			rule:  "extension is non-empty and starts with a dot",
		},
		{
			name: "norm dropped on write",
			codec: broken{serializeIndex: func(d core.IndexData) ([]byte, error) {
				return ref.SerializeIndex(mapItems(d, func(it *core.IndexItem) { it.Norm = 0 }))
			}},
			rule: "index item fields round-trip",
		},
		{
			name: "norm narrowed to float32",
			codec: broken{serializeIndex: func(d core.IndexData) ([]byte, error) {
				return ref.SerializeIndex(mapItems(d, func(it *core.IndexItem) { it.Norm = float64(float32(it.Norm)) }))
			}},
			rule: "numbers round-trip exactly",
		},
		{
			name: "metadata file dropped on read",
			codec: broken{deserializeIdx: func(p []byte) (core.IndexData, error) {
				d, err := ref.DeserializeIndex(p)
				return mapItems(d, func(it *core.IndexItem) { it.MetadataFile = "" }), err
			}},
			rule: "index item fields round-trip",
		},
		{
			name: "metadata file dropped on read, seen through a LocalIndex",
			codec: broken{deserializeIdx: func(p []byte) (core.IndexData, error) {
				d, err := ref.DeserializeIndex(p)
				return mapItems(d, func(it *core.IndexItem) { it.MetadataFile = "" }), err
			}},
			rule: "a LocalIndex over the codec keeps its items, side-cars and query results across reopens",
		},
		{
			name: "items sorted by id on write",
			codec: broken{serializeIndex: func(d core.IndexData) ([]byte, error) {
				d.Items = slices.Clone(d.Items)
				slices.SortFunc(d.Items, func(a, b core.IndexItem) int { return strings.Compare(a.ID, b.ID) })
				return ref.SerializeIndex(d)
			}},
			rule: "items keep their order",
		},
		{
			name: "vectors rounded to 1e-3",
			codec: broken{serializeIndex: func(d core.IndexData) ([]byte, error) {
				return ref.SerializeIndex(mapItems(d, func(it *core.IndexItem) {
					it.Vector = slices.Clone(it.Vector)
					for i, x := range it.Vector {
						it.Vector[i] = float32(math.Round(float64(x)*1000) / 1000)
					}
				}))
			}},
			rule: "1536-dimension vectors round-trip",
		},
		{
			name: "version not carried",
			codec: broken{deserializeIdx: func(p []byte) (core.IndexData, error) {
				d, err := ref.DeserializeIndex(p)
				d.Version = 1
				return d, err
			}},
			rule: "index version is carried",
		},
		{
			name: "nil indexed read back as empty",
			codec: broken{deserializeIdx: func(p []byte) (core.IndexData, error) {
				d, err := ref.DeserializeIndex(p)
				if d.MetadataConfig.Indexed == nil {
					d.MetadataConfig.Indexed = []string{}
				}
				return d, err
			}},
			rule: "absent optional fields stay absent",
		},
		{
			name: "uriToHash lost on read",
			codec: broken{deserializeCat: func(p []byte) (core.DocumentCatalog, error) {
				c, err := ref.DeserializeCatalog(p)
				c.URIToHash = nil
				return c, err
			}},
			rule: "catalog round-trips",
		},
		{
			name: "absent uriToHash read back as an empty map",
			codec: broken{deserializeCat: func(p []byte) (core.DocumentCatalog, error) {
				c, err := ref.DeserializeCatalog(p)
				if c.URIToHash == nil {
					c.URIToHash = map[string]string{}
				}
				return c, err
			}},
			rule: "catalog without uriToHash reads back a nil uriToHash",
		},
		{
			name: "false metadata dropped",
			codec: broken{serializeMeta: func(m core.Metadata) ([]byte, error) {
				out := core.Metadata{}
				for k, v := range m {
					if v != false {
						out[k] = v
					}
				}
				return ref.SerializeMetadata(out)
			}},
			rule: "zero values in metadata files round-trip",
		},
		{
			name: "go ints written as strings",
			codec: broken{serializeMeta: func(m core.Metadata) ([]byte, error) {
				out := core.Metadata{}
				for k, v := range m {
					if n, ok := v.(int); ok {
						v = fmt.Sprint(n)
					}
					out[k] = v
				}
				return ref.SerializeMetadata(out)
			}},
			rule: "go numbers in metadata files read back as float64",
		},
		{
			name: "non-ASCII keys mangled",
			codec: broken{serializeMeta: func(m core.Metadata) ([]byte, error) {
				out := core.Metadata{}
				for k, v := range m {
					out[strings.ToValidUTF8(strings.Map(func(r rune) rune {
						if r > 127 {
							return '?'
						}
						return r
					}, k), "")] = v
				}
				return ref.SerializeMetadata(out)
			}},
			rule: "unicode metadata keys and values round-trip",
		},
		{
			name: "NaN written as zero although non-finite numbers are claimed rejected",
			codec: broken{serializeIndex: func(d core.IndexData) ([]byte, error) {
				return ref.SerializeIndex(mapItems(d, func(it *core.IndexItem) {
					if math.IsNaN(it.Norm) || math.IsInf(it.Norm, 0) {
						it.Norm = 0
					}
				}))
			}},
			rule: "non-finite numbers are rejected or round-trip as claimed",
		},
		{
			name:  "non-finite numbers claimed to round-trip but rejected",
			codec: broken{},
			caps:  func(c *codectest.Capabilities) { c.RejectsNonFinite = false },
			rule:  "non-finite numbers are rejected or round-trip as claimed",
		},
		{
			name: "non-scalar metadata stringified although preserving is claimed",
			codec: broken{serializeMeta: func(m core.Metadata) ([]byte, error) {
				out := core.Metadata{}
				for k, v := range m {
					switch v.(type) {
					case nil, []any, map[string]any:
						v = fmt.Sprint(v)
					}
					out[k] = v
				}
				return ref.SerializeMetadata(out)
			}},
			rule: "non-scalar metadata in metadata files round-trips when claimed",
		},
		{
			name: "panics on garbage",
			codec: broken{deserializeIdx: func(p []byte) (core.IndexData, error) {
				if !bytes.HasPrefix(p, []byte("{")) {
					panic("unexpected byte")
				}
				return ref.DeserializeIndex(p)
			}},
			rule: "garbage gives ErrCorrupt or a stable value, never a panic",
		},
		{
			name: "panics on a truncated index",
			codec: broken{deserializeIdx: func(p []byte) (core.IndexData, error) {
				if !bytes.HasSuffix(p, []byte("}")) {
					var items []core.IndexItem
					_ = items[len(p)] // index out of range
				}
				return ref.DeserializeIndex(p)
			}},
			rule: "truncated index encodings fail or decode without panic as claimed",
		},
		{
			name: "decode errors not wrapping ErrCorrupt",
			codec: broken{deserializeMet: func(p []byte) (core.Metadata, error) {
				m, err := ref.DeserializeMetadata(p)
				if err != nil {
					return nil, errors.New("bad metadata")
				}
				return m, nil
			}},
			rule: "truncated metadata encodings fail or decode without panic as claimed",
		},
		{
			name: "truncated index accepted as empty although truncation is claimed to fail",
			codec: broken{deserializeIdx: func(p []byte) (core.IndexData, error) {
				d, err := ref.DeserializeIndex(p)
				if err != nil {
					return core.IndexData{}, nil
				}
				return d, nil
			}},
			rule: "truncated index encodings fail or decode without panic as claimed",
		},
		{
			name: "decoded garbage that does not survive a round trip",
			codec: broken{deserializeMet: func(p []byte) (core.Metadata, error) {
				m, err := ref.DeserializeMetadata(p)
				if err == nil && len(p) < 4 {
					m = core.Metadata{"len": float64(len(p))} // depends on the bytes, not the value
				}
				return m, err
			}},
			rule: "garbage gives ErrCorrupt or a stable value, never a panic",
		},
	}
	tests = append(tests, sharingBreakages()...)
	tests = append(tests, decoderBreakages()...)
	tests = append(tests, encoderBreakages()...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caps := refCaps
			if tt.caps != nil {
				tt.caps(&caps)
			}
			err := codectest.Check(t.Context(), func(testing.TB) core.IndexCodec { return tt.codec }, caps)
			if err == nil {
				t.Fatalf("Check = nil, want a violation of %q", tt.rule)
			}
			t.Log(firstLines(err.Error(), 3))
			if !strings.Contains(err.Error(), tt.rule+":") {
				t.Fatalf("Check reported no violation of %q; got:\n%v", tt.rule, err)
			}
		})
	}
}

func TestCheckReportsNilCodec(t *testing.T) {
	err := codectest.Check(t.Context(), func(testing.TB) core.IndexCodec { return nil }, refCaps)
	if err == nil || !strings.Contains(err.Error(), "newCodec returned nil") {
		t.Fatalf("Check(nil codec) = %v, want newCodec returned nil", err)
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
