//go:build js && wasm

package main

import (
	"fmt"
	"math"
	"syscall/js"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	storagehttp "github.com/foliovec/folio/adapters/storage-http"
	"github.com/foliovec/folio/core"
)

// indexOptions reads the options Folio adds to Vectra's (all optional):
// quantizedScan, scanCodes, rerankFactor, narrowFactor, strictFilters,
// partitions, targetRecall and fieldWeights,
// and the storage and codec given as Vectra gives them. Those not given are
// left for browser.WithDefaults (IndexedDB, JSON), the page's one
// composition root, except on an HttpFileStorage: protobuf and 4-bit codes,
// as folio publish writes.
func (b *bridge) indexOptions(storage, codec, extra js.Value) (core.IndexOptions, error) {
	var o core.IndexOptions
	switch {
	case storage.IsUndefined() || storage.IsNull():
	default:
		if s, ok := b.handleOf(storage); ok {
			fs, ok := s.(core.FileStorage)
			if !ok {
				return o, fmt.Errorf("folio: storage: %T is not a FileStorage: %w", s, core.ErrInvalidArgument)
			}
			o.Storage = fs
		} else {
			o.Storage = jsStorage{obj: storage}
		}
	}
	if codec.Type() == js.TypeObject {
		ext := prop(codec, "extension")
		if ext.Type() == js.TypeString && (ext.String() == ".pb" || ext.String() == "pb") {
			o.Codec = codecpb.New()
		}
	} else if codec.Type() == js.TypeString && codec.String() == "protobuf" {
		o.Codec = codecpb.New()
	}
	if extra.Type() == js.TypeObject {
		o.QuantizedScan = prop(extra, "quantizedScan").Truthy()
		o.StrictFilters = prop(extra, "strictFilters").Truthy()
		if v := prop(extra, "rerankFactor"); v.Type() == js.TypeNumber {
			o.RerankFactor = v.Int()
		}
		if v := prop(extra, "narrowFactor"); v.Type() == js.TypeNumber {
			o.NarrowFactor = v.Int()
		}
		o.Partitions = prop(extra, "partitions").Truthy()
		if v := prop(extra, "targetRecall"); v.Type() == js.TypeNumber {
			o.TargetRecall = v.Float()
		}
		if v := prop(extra, "scanCodes"); v.Type() == js.TypeString {
			o.ScanCodes = core.ScanCodes(v.String())
		}
		if v := prop(extra, "fieldWeights"); v.Type() == js.TypeObject {
			w := core.DefaultFieldWeights()
			for name, f := range map[string]*float64{"headings": &w.Headings, "title": &w.Title, "name": &w.Name} {
				if n := prop(v, name); n.Type() == js.TypeNumber {
					*f = n.Float()
				}
			}
			o.FieldWeights = &w
		}
	}
	// An index on a web host is one folio publish wrote: protobuf, its
	// segments read through their 4-bit codes.
	if _, web := o.Storage.(*storagehttp.Storage); web {
		if o.Codec == nil {
			o.Codec = codecpb.New()
		}
		if o.ScanCodes == "" && !o.QuantizedScan {
			o.ScanCodes = core.CodesInt4
		}
	}
	return o, nil
}

// model is the embeddings model a page gave: one of Folio's, or any
// object with maxTokens and createEmbeddings.
func (b *bridge) model(v js.Value) core.EmbeddingsModel {
	if v.IsUndefined() || v.IsNull() {
		return nil
	}
	if m, ok := b.handleOf(v); ok {
		if em, ok := m.(core.EmbeddingsModel); ok {
			return em
		}
	}
	return jsEmbeddings{obj: v}
}

// tokenizer is the tokenizer a page gave: one of Folio's, or any object
// with encode and decode.
func (b *bridge) tokenizer(v js.Value) core.Tokenizer {
	if v.IsUndefined() || v.IsNull() {
		return nil
	}
	if t, ok := b.handleOf(v); ok {
		if tok, ok := t.(core.Tokenizer); ok {
			return tok
		}
	}
	return jsTokenizer{obj: v}
}

// chunking reads a chunkingConfig (Vectra's TextSplitterConfig, partial).
func (b *bridge) chunking(v js.Value) (core.ChunkingConfig, error) {
	var c core.ChunkingConfig
	if v.Type() != js.TypeObject {
		return c, nil
	}
	var cfg struct {
		ChunkSize      int      `json:"chunkSize"`
		ChunkOverlap   int      `json:"chunkOverlap"`
		KeepSeparators *bool    `json:"keepSeparators"`
		Separators     []string `json:"separators"`
		DocType        string   `json:"docType"`
	}
	if err := fromJSON(withoutKey(v, "tokenizer"), &cfg); err != nil {
		return c, fmt.Errorf("folio: chunkingConfig: %w: %w", core.ErrInvalidArgument, err)
	}
	c.ChunkSize, c.ChunkOverlap, c.Separators, c.DocType = cfg.ChunkSize, cfg.ChunkOverlap, cfg.Separators, cfg.DocType
	c.DropSeparators = cfg.KeepSeparators != nil && !*cfg.KeepSeparators
	c.Tokenizer = b.tokenizer(prop(v, "tokenizer"))
	return c, nil
}

// withoutKey is a shallow copy of an object without one key (a value
// JSON cannot carry, such as a tokenizer object).
func withoutKey(v js.Value, key string) js.Value {
	c := js.Global().Get("Object").Call("assign", js.Global().Get("Object").New(), v)
	c.Delete(key)
	return c
}

// vector reads a query or item vector: an array of numbers or a typed
// array.
func vector(v js.Value) ([]float32, error) {
	kind := tag(v)
	if kind != "Array" && !js.Global().Get("ArrayBuffer").Call("isView", v).Truthy() || kind == "DataView" {
		return nil, fmt.Errorf("folio: a vector must be an array of numbers: %w", core.ErrInvalidArgument)
	}
	out := float32s(js.Global().Get("Float32Array").Call("from", v))
	for _, x := range out {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("folio: a vector must hold finite numbers: %w", core.ErrInvalidArgument)
		}
	}
	return out, nil
}

// itemIn reads a (partial) IndexItem.
func itemIn(v js.Value) (core.IndexItem, error) {
	if v.Type() != js.TypeObject {
		return core.IndexItem{}, fmt.Errorf("folio: an item must be an object: %w", core.ErrInvalidArgument)
	}
	var it struct {
		ID       string        `json:"id"`
		Metadata core.Metadata `json:"metadata"`
	}
	if err := fromJSON(withoutKey(v, "vector"), &it); err != nil {
		return core.IndexItem{}, fmt.Errorf("folio: item: %w: %w", core.ErrInvalidArgument, err)
	}
	out := core.IndexItem{ID: it.ID, Metadata: it.Metadata}
	if vec := prop(v, "vector"); !vec.IsUndefined() && !vec.IsNull() {
		var err error
		if out.Vector, err = vector(vec); err != nil {
			return core.IndexItem{}, err
		}
	}
	return out, nil
}

// filterIn reads a MetadataFilter; undefined is none.
func filterIn(v js.Value) (core.Filter, error) {
	if v.IsUndefined() || v.IsNull() {
		return nil, nil
	}
	s := js.Global().Get("JSON").Call("stringify", v)
	if s.Type() != js.TypeString {
		return nil, fmt.Errorf("folio: a filter must be an object: %w", core.ErrInvalidArgument)
	}
	return core.ParseFilter([]byte(s.String()))
}

func stringsIn(v js.Value) ([]string, error) {
	var out []string
	if v.Type() == js.TypeObject && prop(v, "length").Type() != js.TypeNumber {
		v = js.Global().Get("Array").Call("from", v) // any iterable, as Vectra takes
	}
	if err := fromJSON(v, &out); err != nil {
		return nil, fmt.Errorf("folio: want a list of strings: %w: %w", core.ErrInvalidArgument, err)
	}
	return out, nil
}

// topK reads queryItems' topK as Vectra does: a fraction counts as the
// next whole number, and anything but a number (undefined, NaN) as 0, which
// answers nothing.
func topK(v js.Value) int {
	if v.Type() != js.TypeNumber {
		return 0
	}
	f := v.Float()
	if math.IsNaN(f) || f <= 0 {
		return 0
	}
	return int(math.Ceil(min(f, math.MaxInt32)))
}

// documentQueryOptions reads queryDocuments' options object: Vectra's
// maxDocuments, maxChunks, isBm25 and filter, and Folio's fusion ("rrf",
// with isBm25, ranks vector and keyword matches together) and fusionK.
// The ranking is the folio command's: with neither isBm25 nor fusion given
// it is fusion; isBm25 given alone keeps Vectra's meaning (true: its
// hybrid search, false: its vector search).
func documentQueryOptions(v js.Value) (core.DocumentQueryOptions, error) {
	fused := core.DocumentQueryOptions{IsBm25: true, Fusion: core.FusionRRF}
	if v.Type() != js.TypeObject {
		return fused, nil
	}
	var o core.DocumentQueryOptions
	o.MaxDocuments = num([]js.Value{prop(v, "maxDocuments")}, 0, 0)
	o.MaxChunks = num([]js.Value{prop(v, "maxChunks")}, 0, 0)
	bm25, fu := prop(v, "isBm25"), prop(v, "fusion")
	o.IsBm25 = bm25.Truthy()
	if fu.Type() == js.TypeString {
		o.Fusion = fu.String()
	}
	if bm25.IsUndefined() && (fu.IsUndefined() || fu.IsNull()) {
		o.IsBm25, o.Fusion = fused.IsBm25, fused.Fusion
	}
	o.FusionK = num([]js.Value{prop(v, "fusionK")}, 0, 0)
	f, err := filterIn(prop(v, "filter"))
	o.Filter = f
	return o, err
}

// boolArg is args[i] as a bool, def when missing or undefined.
func boolArg(args []js.Value, i int, def bool) bool {
	if i < len(args) && !args[i].IsUndefined() {
		return args[i].Truthy()
	}
	return def
}
