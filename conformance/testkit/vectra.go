package testkit

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/foliovec/folio/core"
)

// Dump is dumps/<folder>.json of the Vectra fixtures: what Vectra 0.15
// itself reads back from one fixture folder. Its core types take Vectra's
// names (uriToId, indexed) as encoding/json matches names regardless of case.
type Dump struct {
	Format          string `json:"format"`
	IsDocumentIndex bool   `json:"isDocumentIndex"`
	Stats           struct {
		Version        int                 `json:"version"`
		Items          int                 `json:"items"`
		MetadataConfig core.MetadataConfig `json:"metadata_config"`
	} `json:"stats"`
	Items []DumpItem `json:"items"`
	// Catalog is nil for an item folder.
	Catalog      *core.DocumentCatalog `json:"catalog"`
	CatalogStats struct {
		Version        int                 `json:"version"`
		Documents      int                 `json:"documents"`
		Chunks         int                 `json:"chunks"`
		MetadataConfig core.MetadataConfig `json:"metadata_config"`
	} `json:"catalogStats"`
	Documents []DumpDocument `json:"documents"`
	// Files names the folder's files.
	Files []string `json:"files"`
}

// DumpItem is one item as Vectra reads it back.
type DumpItem struct {
	ID           string        `json:"id"`
	Dims         int           `json:"dims"`
	Metadata     core.Metadata `json:"metadata"`
	MetadataFile string        `json:"metadataFile"`
	// SidecarMetadata is the content of MetadataFile.
	SidecarMetadata core.Metadata `json:"sidecarMetadata"`
	Norm            float64       `json:"norm"`
	Vector          []float64     `json:"vector"`
}

// DumpDocument is one document of a document folder as Vectra reads it.
type DumpDocument struct {
	ID          string        `json:"id"`
	URI         string        `json:"uri"`
	ChunkCount  int           `json:"chunkCount"`
	HasMetadata bool          `json:"hasMetadata"`
	Metadata    core.Metadata `json:"metadata"`
	Text        string        `json:"text"`
	TokenLength int           `json:"tokenLength"`
}

// Item returns the dump's item with the id; it fails the test if there is
// none.
func (d Dump) Item(t testing.TB, id string) DumpItem {
	t.Helper()
	i := slices.IndexFunc(d.Items, func(it DumpItem) bool { return it.ID == id })
	if i < 0 {
		t.Fatalf("no dump item %q", id)
	}
	return d.Items[i]
}

// ReadDump reads dumps/<folder>.json.
func ReadDump(t testing.TB, folder string) Dump {
	t.Helper()
	var d Dump
	readJSON(t, &d, "dumps", folder+".json")
	return d
}

// Inputs is inputs.json of the Vectra fixtures: what the script that wrote
// the folders put in them and asked of them.
type Inputs struct {
	// FakeEmbeddings describes the hash embeddings the folders were
	// written with (embed-hash's), with reference vectors.
	FakeEmbeddings struct {
		Dims      int                  `json:"dims"`
		MaxTokens int                  `json:"maxTokens"`
		Reference []EmbeddingReference `json:"reference"`
	} `json:"fakeEmbeddings"`
	ItemQueries []struct {
		Filter core.Filter `json:"filter"`
		Text   string      `json:"text"`
	} `json:"itemQueries"`
	ListFilters []core.Filter `json:"listFilters"`
	Documents   struct {
		List []struct {
			URI      string        `json:"uri"`
			Text     string        `json:"text"`
			DocType  string        `json:"docType"`
			Metadata core.Metadata `json:"metadata"`
		} `json:"list"`
	} `json:"documents"`
	DocumentQueries []DocumentQuery `json:"documentQueries"`
}

// EmbeddingReference is one input of the fake embeddings with its tokens,
// their FNV-1a hashes and the vector Vectra's script computed.
type EmbeddingReference struct {
	Input   string    `json:"input"`
	Tokens  []string  `json:"tokens"`
	FNV1a32 []uint32  `json:"fnv1a32"`
	Vector  []float64 `json:"vector"`
}

// DocumentQuery is one document query of inputs.json.
type DocumentQuery struct {
	Query   string `json:"query"`
	Options struct {
		MaxDocuments int         `json:"maxDocuments"`
		MaxChunks    int         `json:"maxChunks"`
		Filter       core.Filter `json:"filter"`
		IsBm25       bool        `json:"isBm25"`
	} `json:"options"`
}

// QueryOptions returns the query's options as Folio's.
func (q DocumentQuery) QueryOptions() *core.DocumentQueryOptions {
	o := q.Options
	return &core.DocumentQueryOptions{MaxDocuments: o.MaxDocuments, MaxChunks: o.MaxChunks, Filter: o.Filter, IsBm25: o.IsBm25}
}

// ReadInputs reads inputs.json.
func ReadInputs(t testing.TB) Inputs {
	t.Helper()
	var in Inputs
	readJSON(t, &in, "inputs.json")
	return in
}

func readJSON(t testing.TB, v any, elem ...string) {
	t.Helper()
	if err := json.Unmarshal(ReadFixture(t, elem...), v); err != nil {
		t.Fatal(err)
	}
}

// CheckDecodedItems reports, with t.Errorf, each way index, decoded by c
// from the fixture folder, differs from what Vectra reads back from it
// (dump): its version, indexed fields and items, and each item's metadata,
// metadata file, norm and vector (to float32 precision); the side-car of
// each item that has one is read from the folder and decoded by c.
func CheckDecodedItems(t testing.TB, c core.IndexCodec, folder string, index core.IndexData, dump Dump) {
	t.Helper()
	if index.Version != dump.Stats.Version {
		t.Errorf("version = %d, Vectra reads %d", index.Version, dump.Stats.Version)
	}
	if !slices.Equal(index.MetadataConfig.Indexed, dump.Stats.MetadataConfig.Indexed) ||
		(index.MetadataConfig.Indexed == nil) != (dump.Stats.MetadataConfig.Indexed == nil) {
		t.Errorf("indexed = %#v, Vectra reads %#v", index.MetadataConfig.Indexed, dump.Stats.MetadataConfig.Indexed)
	}
	if len(index.Items) != dump.Stats.Items || len(index.Items) != len(dump.Items) {
		t.Fatalf("%d items, Vectra reads %d (%d listed)", len(index.Items), dump.Stats.Items, len(dump.Items))
	}
	byID := map[string]core.IndexItem{}
	for _, it := range index.Items {
		byID[it.ID] = it
	}
	for _, want := range dump.Items {
		got, ok := byID[want.ID]
		if !ok {
			t.Errorf("item %q missing", want.ID)
			continue
		}
		if !reflect.DeepEqual(got.Metadata, want.Metadata) {
			t.Errorf("item %q metadata = %v, Vectra reads %v", want.ID, got.Metadata, want.Metadata)
		}
		if got.MetadataFile != want.MetadataFile {
			t.Errorf("item %q metadataFile = %q, Vectra reads %q", want.ID, got.MetadataFile, want.MetadataFile)
		}
		if got.Norm != want.Norm {
			t.Errorf("item %q norm = %v, Vectra reads %v", want.ID, got.Norm, want.Norm)
		}
		if len(got.Vector) != len(want.Vector) || want.Dims != 0 && want.Dims != len(want.Vector) {
			t.Errorf("item %q has %d dimensions, Vectra reads %d", want.ID, len(got.Vector), len(want.Vector))
			continue
		}
		for i, x := range want.Vector {
			if got.Vector[i] != float32(x) {
				t.Errorf("item %q vector[%d] = %v, Vectra reads %v (float32 %v)", want.ID, i, got.Vector[i], x, float32(x))
				break
			}
		}
		if want.MetadataFile == "" {
			continue
		}
		side, err := c.DeserializeMetadata(ReadFixture(t, folder, want.MetadataFile))
		if err != nil {
			t.Errorf("item %q side-car: %v", want.ID, err)
			continue
		}
		if !reflect.DeepEqual(side, want.SidecarMetadata) {
			t.Errorf("item %q side-car = %v, Vectra reads %v", want.ID, side, want.SidecarMetadata)
		}
	}
}
