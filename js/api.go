//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"syscall/js"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	storageidb "github.com/foliovec/folio/adapters/storage-idb"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
)

// item is Vectra's IndexItem. Its vector is an index into the vectors of
// the answer (see packed).
type item struct {
	ID           string        `json:"id"`
	Metadata     core.Metadata `json:"metadata"`
	Vector       vectorRef     `json:"vector"`
	Norm         float64       `json:"norm"`
	MetadataFile string        `json:"metadataFile,omitempty"`
}

// queryResult is Vectra's QueryResult.
type queryResult struct {
	Item  item    `json:"item"`
	Score float64 `json:"score"`
}

// vectors collects the vectors of one answer. They go to JavaScript as
// float32 values in one typed array, not through JSON: formatting
// thousands of floats in wasm takes longer than the query itself.
type vectors struct{ list [][]float32 }

// vectorRef marshals as {"\u0000v": k}, the k-th vector of the answer,
// which the JSON.parse reviver of packed replaces with the vector.
type vectorRef int

func (r vectorRef) MarshalJSON() ([]byte, error) {
	return []byte(`{"\u0000v":` + strconv.Itoa(int(r)) + `}`), nil
}

func (vs *vectors) item(it core.IndexItem) item {
	md := it.Metadata
	if md == nil {
		md = core.Metadata{}
	}
	vs.list = append(vs.list, it.Vector)
	return item{ID: it.ID, Metadata: md, Vector: vectorRef(len(vs.list) - 1), Norm: it.Norm, MetadataFile: it.MetadataFile}
}

func (vs *vectors) items(its []core.IndexItem) []item {
	out := make([]item, len(its))
	for i, it := range its {
		out[i] = vs.item(it)
	}
	return out
}

func (vs *vectors) results(rs []core.QueryResult) []queryResult {
	out := make([]queryResult, len(rs))
	for i, r := range rs {
		out[i] = queryResult{Item: vs.item(r.Item), Score: finite(r.Score)}
	}
	return out
}

// packed is an answer with its items' vectors.
type packed struct {
	v  any
	vs *vectors
}

// packItem, packItems and packResults are answers of one item, of items
// and of query results.
func packItem(it core.IndexItem) packed {
	vs := &vectors{}
	return packed{vs.item(it), vs}
}

func packItems(its []core.IndexItem) packed {
	vs := &vectors{}
	return packed{vs.items(its), vs}
}

func packResults(rs []core.QueryResult) packed {
	vs := &vectors{}
	return packed{vs.results(rs), vs}
}

// finite keeps a NaN score (a zero vector's) from breaking JSON; it is 0
// here, as JSON.stringify writes NaN as null.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

type metadataConfig struct {
	Indexed []string `json:"indexed,omitempty"`
}

type indexStats struct {
	Version        int            `json:"version"`
	MetadataConfig metadataConfig `json:"metadata_config"`
	Items          int            `json:"items"`
}

type catalogStats struct {
	Version        int            `json:"version"`
	Documents      int            `json:"documents"`
	Chunks         int            `json:"chunks"`
	MetadataConfig metadataConfig `json:"metadata_config"`
}

type createConfig struct {
	Version        int            `json:"version"`
	DeleteIfExists bool           `json:"deleteIfExists"`
	MetadataConfig metadataConfig `json:"metadata_config"`
}

func (c createConfig) core() core.CreateIndexConfig {
	if c.Version == 0 {
		c.Version = 1
	}
	return core.CreateIndexConfig{Version: c.Version, DeleteIfExists: c.DeleteIfExists,
		MetadataConfig: core.MetadataConfig{Indexed: c.MetadataConfig.Indexed}}
}

type section struct {
	Text       string  `json:"text"`
	TokenCount int     `json:"tokenCount"`
	Score      float64 `json:"score"`
	IsBm25     bool    `json:"isBm25"`
}

func sectionsOf(ss []core.DocumentTextSection) []section {
	out := make([]section, len(ss))
	for i, s := range ss {
		out[i] = section{Text: s.Text, TokenCount: s.TokenCount, Score: finite(s.Score), IsBm25: s.IsBm25}
	}
	return out
}

// document is a LocalDocument or LocalDocumentResult as folio.js builds
// it: its handle, id and uri, and a result's chunks and score.
type document struct {
	H      int           `json:"h"`
	ID     string        `json:"id"`
	URI    string        `json:"uri"`
	Chunks []queryResult `json:"chunks,omitempty"`
	Score  *float64      `json:"score,omitempty"`
}

func (b *bridge) documentOf(doc *core.LocalDocument) document {
	return document{H: b.handles.add(doc), ID: doc.ID(), URI: doc.URI()}
}

func (b *bridge) resultsOf(rs []*core.LocalDocumentResult) packed {
	vs := &vectors{}
	out := make([]document, len(rs))
	for i, r := range rs {
		score := finite(r.Score)
		out[i] = document{H: b.handles.add(r), ID: r.ID(), URI: r.URI(), Chunks: vs.results(r.Chunks), Score: &score}
	}
	return packed{out, vs}
}

// indexOptions reads the options Folio adds to Vectra's (all optional):
// quantizedScan, rerankFactor and strictFilters, and the storage and
// codec given as Vectra gives them.
func (b *bridge) indexOptions(storage, codec, extra js.Value) (core.IndexOptions, error) {
	var o core.IndexOptions
	switch {
	case storage.IsUndefined() || storage.IsNull():
		o.Storage = storageidb.New(nil)
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
	o.Codec = codecjson.New()
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

func newLocalIndex(b *bridge) func(args []js.Value) (any, error) {
	return func(args []js.Value) (any, error) {
		o, err := b.indexOptions(arg(args, 2), arg(args, 3), arg(args, 4))
		if err != nil {
			return nil, err
		}
		o.IndexName = str(args, 1)
		return core.NewLocalIndex(str(args, 0), o)
	}
}

func newLocalDocumentIndex(b *bridge) func(args []js.Value) (any, error) {
	return func(args []js.Value) (any, error) {
		cfg := arg(args, 0)
		if cfg.Type() != js.TypeObject {
			return nil, fmt.Errorf("folio: LocalDocumentIndex needs a config with a folderPath: %w", core.ErrInvalidArgument)
		}
		o, err := b.indexOptions(prop(cfg, "storage"), prop(cfg, "codec"), cfg)
		if err != nil {
			return nil, err
		}
		if n := prop(cfg, "indexName"); n.Type() == js.TypeString {
			o.IndexName = n.String()
		}
		chunking, err := b.chunking(prop(cfg, "chunkingConfig"))
		if err != nil {
			return nil, err
		}
		tok := b.tokenizer(prop(cfg, "tokenizer"))
		if tok == nil && chunking.Tokenizer == nil {
			tok = tokenizertiktoken.New() // Vectra's GPT3Tokenizer: o200k_base
		}
		folder := ""
		if f := prop(cfg, "folderPath"); f.Type() == js.TypeString {
			folder = f.String()
		}
		return core.NewLocalDocumentIndex(core.LocalDocumentIndexConfig{
			IndexOptions: o, FolderPath: folder, Embeddings: b.model(prop(cfg, "embeddings")),
			Tokenizer: tok, ChunkingConfig: chunking,
		})
	}
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

// indexMethods are LocalIndex's asynchronous methods; index gives the
// *core.LocalIndex of the object (a document index's own for those).
func indexMethods(index func(obj any) *core.LocalIndex) map[string]method {
	return map[string]method{
		"createIndex": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			var c createConfig
			if err := fromJSON(arg(args, 0), &c); err != nil {
				return nil, fmt.Errorf("folio: createIndex: %w: %w", core.ErrInvalidArgument, err)
			}
			if d, ok := obj.(*core.LocalDocumentIndex); ok {
				return nil, d.CreateIndex(ctx, c.core())
			}
			return nil, index(obj).CreateIndex(ctx, c.core())
		},
		"deleteIndex": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			if d, ok := obj.(*core.LocalDocumentIndex); ok {
				return nil, d.DeleteIndex(ctx)
			}
			return nil, index(obj).DeleteIndex(ctx)
		},
		"isIndexCreated": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			return index(obj).IsIndexCreated(ctx)
		},
		"getIndexStats": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			s, err := index(obj).GetIndexStats(ctx)
			if err != nil {
				return nil, err
			}
			return indexStats{Version: s.Version, MetadataConfig: metadataConfig{Indexed: s.MetadataConfig.Indexed}, Items: s.Items}, nil
		},
		"beginUpdate": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			return nil, index(obj).BeginUpdate(ctx)
		},
		"endUpdate": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			if d, ok := obj.(*core.LocalDocumentIndex); ok {
				return nil, d.EndUpdate(ctx)
			}
			return nil, index(obj).EndUpdate(ctx)
		},
		"insertItem": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			it, err := itemIn(arg(args, 0))
			if err != nil {
				return nil, err
			}
			out, err := index(obj).InsertItem(ctx, it)
			return packItem(out), err
		},
		"upsertItem": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			it, err := itemIn(arg(args, 0))
			if err != nil {
				return nil, err
			}
			out, err := index(obj).UpsertItem(ctx, it)
			return packItem(out), err
		},
		"batchInsertItems": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			list := arg(args, 0)
			if list.Type() != js.TypeObject {
				return nil, fmt.Errorf("folio: batchInsertItems needs an array of items: %w", core.ErrInvalidArgument)
			}
			items := make([]core.IndexItem, length(list))
			for i := range items {
				var err error
				if items[i], err = itemIn(prop(list, i)); err != nil {
					return nil, err
				}
			}
			out, err := index(obj).BatchInsertItems(ctx, items)
			return packItems(out), err
		},
		"deleteItem": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			return nil, index(obj).DeleteItem(ctx, str(args, 0))
		},
		"deleteItems": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			ids, err := stringsIn(arg(args, 0))
			if err != nil {
				return nil, err
			}
			return nil, index(obj).DeleteItems(ctx, ids)
		},
		"getItem": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			it, ok, err := index(obj).GetItem(ctx, str(args, 0))
			if err != nil || !ok {
				return nil, err
			}
			return packItem(it), nil
		},
		"listItems": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			its, err := index(obj).ListItems(ctx)
			return packItems(its), err
		},
		"listItemsByMetadata": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			f, err := filterIn(arg(args, 0))
			if err != nil {
				return nil, err
			}
			its, err := index(obj).ListItemsByMetadata(ctx, f)
			return packItems(its), err
		},
		"queryItems": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			vec, err := vector(arg(args, 0))
			if err != nil {
				return nil, err
			}
			f, err := filterIn(arg(args, 3))
			if err != nil {
				return nil, err
			}
			rs, err := index(obj).QueryItems(ctx, vec, str(args, 1), topK(arg(args, 2)), f, arg(args, 4).Truthy())
			return packResults(rs), err
		},
	}
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

// documentIndexMethods are LocalDocumentIndex's own asynchronous methods.
func documentIndexMethods(b *bridge) map[string]method {
	d := func(obj any) *core.LocalDocumentIndex { return obj.(*core.LocalDocumentIndex) }
	return map[string]method{
		"isCatalogCreated": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			return d(obj).IsCatalogCreated(ctx)
		},
		"getDocumentId": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			id, ok, err := d(obj).GetDocumentID(ctx, str(args, 0))
			if err != nil || !ok {
				return nil, err
			}
			return id, nil
		},
		"getDocumentUri": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			uri, ok, err := d(obj).GetDocumentURI(ctx, str(args, 0))
			if err != nil || !ok {
				return nil, err
			}
			return uri, nil
		},
		"getCatalogStats": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			s, err := d(obj).GetCatalogStats(ctx)
			if err != nil {
				return nil, err
			}
			return catalogStats{Version: s.Version, Documents: s.Documents, Chunks: s.Chunks,
				MetadataConfig: metadataConfig{Indexed: s.MetadataConfig.Indexed}}, nil
		},
		"deleteDocument": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			return nil, d(obj).DeleteDocument(ctx, str(args, 0))
		},
		"upsertDocument": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			var md core.Metadata
			if err := fromJSON(arg(args, 3), &md); err != nil {
				return nil, fmt.Errorf("folio: upsertDocument metadata: %w: %w", core.ErrInvalidArgument, err)
			}
			var opts core.UpsertDocumentOptions
			if o := arg(args, 4); o.Type() == js.TypeObject {
				opts.Force = prop(o, "force").Truthy()
			}
			doc, err := d(obj).UpsertDocument(ctx, str(args, 0), str(args, 1), str(args, 2), md, &opts)
			if err != nil {
				return nil, err
			}
			return b.documentOf(doc), nil
		},
		"listDocuments": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			rs, err := d(obj).ListDocuments(ctx)
			return b.resultsOf(rs), err
		},
		"queryDocuments": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			var o core.DocumentQueryOptions
			if v := arg(args, 1); v.Type() == js.TypeObject {
				o.MaxDocuments = num([]js.Value{prop(v, "maxDocuments")}, 0, 0)
				o.MaxChunks = num([]js.Value{prop(v, "maxChunks")}, 0, 0)
				o.IsBm25 = prop(v, "isBm25").Truthy()
				// Folio's: fusion "rrf" ranks vector and keyword matches
				// together (with isBm25), fusionK its k.
				if fu := prop(v, "fusion"); fu.Type() == js.TypeString {
					o.Fusion = fu.String()
				}
				o.FusionK = num([]js.Value{prop(v, "fusionK")}, 0, 0)
				f, err := filterIn(prop(v, "filter"))
				if err != nil {
					return nil, err
				}
				o.Filter = f
			}
			rs, err := d(obj).QueryDocuments(ctx, str(args, 0), &o)
			return b.resultsOf(rs), err
		},
	}
}

// documentMethods are LocalDocument's and LocalDocumentResult's.
func documentMethods(doc func(obj any) *core.LocalDocument) map[string]method {
	return map[string]method{
		"getLength": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			return doc(obj).GetLength(ctx)
		},
		"hasMetadata": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			return doc(obj).HasMetadata(ctx)
		},
		"loadMetadata": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			md, err := doc(obj).LoadMetadata(ctx)
			if md == nil && err == nil {
				md = core.Metadata{}
			}
			return md, err
		},
		"loadText": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			return doc(obj).LoadText(ctx)
		},
	}
}

func resultMethods() map[string]method {
	m := documentMethods(func(obj any) *core.LocalDocument { return obj.(*core.LocalDocumentResult).LocalDocument })
	m["renderSections"] = func(ctx context.Context, obj any, args []js.Value) (any, error) {
		ss, err := obj.(*core.LocalDocumentResult).RenderSections(ctx, num(args, 0, 0), num(args, 1, 1), boolArg(args, 2, true))
		return sectionsOf(ss), err
	}
	// render is Folio's: passages by default, Vectra's sections with
	// vectraSections (core.LocalDocumentResult.Render).
	m["render"] = func(ctx context.Context, obj any, args []js.Value) (any, error) {
		var o core.RenderOptions
		if v := arg(args, 0); v.Type() == js.TypeObject {
			o.MaxTokens = num([]js.Value{prop(v, "maxTokens")}, 0, 0)
			o.MaxSections = num([]js.Value{prop(v, "maxSections")}, 0, 0)
			o.VectraSections = prop(v, "vectraSections").Truthy()
			o.NoOverlap = !boolArg([]js.Value{prop(v, "overlappingChunks")}, 0, true)
		}
		ss, err := obj.(*core.LocalDocumentResult).Render(ctx, &o)
		return sectionsOf(ss), err
	}
	m["renderAllSections"] = func(ctx context.Context, obj any, args []js.Value) (any, error) {
		ss, err := obj.(*core.LocalDocumentResult).RenderAllSections(ctx, num(args, 0, 0))
		return sectionsOf(ss), err
	}
	return m
}

// boolArg is args[i] as a bool, def when missing or undefined.
func boolArg(args []js.Value, i int, def bool) bool {
	if i < len(args) && !args[i].IsUndefined() {
		return args[i].Truthy()
	}
	return def
}
