//go:build js && wasm

package main

import (
	"math"
	"strconv"

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
	// Layout is Folio's: "file" (Vectra's, the default) or "segmented".
	Layout string `json:"layout"`
}

func (c createConfig) core() core.CreateIndexConfig {
	if c.Version == 0 {
		c.Version = 1
	}
	return core.CreateIndexConfig{Version: c.Version, DeleteIfExists: c.DeleteIfExists,
		MetadataConfig: core.MetadataConfig{Indexed: c.MetadataConfig.Indexed}, Layout: core.Layout(c.Layout)}
}

type section struct {
	Text       string  `json:"text"`
	TokenCount int     `json:"tokenCount"`
	Score      float64 `json:"score"`
	IsBm25     bool    `json:"isBm25"`
	// Headings are the headings above a passage, outermost first, joined
	// by " > " (absent for Vectra's sections).
	Headings string `json:"headings,omitempty"`
}

func sectionsOf(ss []core.DocumentTextSection) []section {
	out := make([]section, len(ss))
	for i, s := range ss {
		out[i] = section{Text: s.Text, TokenCount: s.TokenCount, Score: finite(s.Score), IsBm25: s.IsBm25, Headings: s.Headings}
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
