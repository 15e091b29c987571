package grpcserver_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	grpcserver "github.com/foliovec/folio/adapters/grpc"
	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

func must[T any](t *testing.T, what string) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
}

func TestItemRPCs(t *testing.T) {
	for _, format := range []string{"json", "protobuf", "segmented"} {
		t.Run(format, func(t *testing.T) {
			ctx := t.Context()
			ts := startServer(t, nil)
			c := ts.client
			must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "items", Format: format}))
			byVector := must[*vectrapb.InsertItemResponse](t, "InsertItem")(c.InsertItem(ctx, &vectrapb.InsertItemRequest{
				IndexName: "items", Vector: testkit.WordVector("red apple", 8), Metadata: map[string]*vectrapb.MetadataValue{"kind": str("fruit"), "n": num(1), "ok": boolean(true)},
			}))
			if len(byVector.GetId()) != 36 {
				t.Errorf("generated id %q is no uuid", byVector.GetId())
			}
			must[*vectrapb.InsertItemResponse](t, "InsertItem by text")(c.InsertItem(ctx, &vectrapb.InsertItemRequest{
				IndexName: "items", Id: "car", Text: "fast red car", Metadata: map[string]*vectrapb.MetadataValue{"kind": str("vehicle"), "n": num(2)},
			}))
			must[*vectrapb.UpsertItemResponse](t, "UpsertItem")(c.UpsertItem(ctx, &vectrapb.UpsertItemRequest{
				IndexName: "items", Id: "car", Text: "slow blue car", Metadata: map[string]*vectrapb.MetadataValue{"kind": str("vehicle"), "n": num(3)},
			}))
			batch := must[*vectrapb.BatchInsertItemsResponse](t, "BatchInsertItems")(c.BatchInsertItems(ctx, &vectrapb.BatchInsertItemsRequest{
				IndexName: "items",
				Items: []*vectrapb.InsertItemRequest{
					{Id: "b1", Text: "green pear", Metadata: map[string]*vectrapb.MetadataValue{"kind": str("fruit"), "n": num(4)}},
					{Text: "yellow banana", Metadata: map[string]*vectrapb.MetadataValue{"kind": str("fruit"), "n": num(5)}},
					{Id: "b3", Vector: testkit.WordVector("blue truck", 8), Metadata: map[string]*vectrapb.MetadataValue{"kind": str("vehicle"), "n": num(6)}},
				},
			}))
			if ids := batch.GetIds(); len(ids) != 3 || ids[0] != "b1" || len(ids[1]) != 36 || ids[2] != "b3" {
				t.Errorf("batch ids = %q", ids)
			}
			got := must[*vectrapb.GetItemResponse](t, "GetItem")(c.GetItem(ctx, &vectrapb.GetItemRequest{IndexName: "items", Id: "car"}))
			if it := got.GetItem(); it.GetId() != "car" || it.GetMetadata()["n"].GetNumberValue() != 3 || len(it.GetVector()) != 8 || it.GetNorm() == 0 || it.GetScore() != 0 {
				t.Errorf("GetItem = %v", it)
			}
			all := must[*vectrapb.ListItemsResponse](t, "ListItems")(c.ListItems(ctx, &vectrapb.ListItemsRequest{IndexName: "items"}))
			if len(all.GetItems()) != 5 {
				t.Errorf("ListItems: %d items, want 5", len(all.GetItems()))
			}
			fruit := must[*vectrapb.ListItemsResponse](t, "ListItems filtered")(c.ListItems(ctx, &vectrapb.ListItemsRequest{IndexName: "items", Filter: filter(`{"kind":"fruit"}`)}))
			if len(fruit.GetItems()) != 3 {
				t.Errorf("ListItems with a filter: %d items, want 3", len(fruit.GetItems()))
			}
			q := must[*vectrapb.QueryItemsResponse](t, "QueryItems by text")(c.QueryItems(ctx, &vectrapb.QueryItemsRequest{IndexName: "items", Text: "red apple", TopK: 2}))
			if r := q.GetResults(); len(r) != 2 || r[0].GetId() != byVector.GetId() || r[0].GetScore() < 0.99 || r[0].GetMetadata()["kind"].GetStringValue() != "fruit" {
				t.Errorf("QueryItems = %v", r)
			}
			qf := must[*vectrapb.QueryItemsResponse](t, "QueryItems filtered")(c.QueryItems(ctx, &vectrapb.QueryItemsRequest{IndexName: "items", Vector: testkit.WordVector("car", 8), Filter: filter(`{"n":{"$gte":4}}`)}))
			if r := qf.GetResults(); len(r) != 3 {
				t.Errorf("QueryItems with a range filter and the default top_k: %d results, want 3", len(r))
			}
			must[*vectrapb.DeleteItemResponse](t, "DeleteItem")(c.DeleteItem(ctx, &vectrapb.DeleteItemRequest{IndexName: "items", Id: "b1"}))
			must[*vectrapb.DeleteItemResponse](t, "DeleteItem of a missing id")(c.DeleteItem(ctx, &vectrapb.DeleteItemRequest{IndexName: "items", Id: "never"}))
			stats := must[*vectrapb.GetIndexStatsResponse](t, "GetIndexStats")(c.GetIndexStats(ctx, &vectrapb.GetIndexStatsRequest{IndexName: "items"}))
			if stats.GetItemCount() != 4 || stats.GetFormat() != format || stats.GetVersion() != 1 || stats.GetMetadataConfigCount() != 0 {
				t.Errorf("GetIndexStats = %v", stats)
			}
			list := must[*vectrapb.ListIndexesResponse](t, "ListIndexes")(c.ListIndexes(ctx, &vectrapb.ListIndexesRequest{}))
			if l := list.GetIndexes(); len(l) != 1 || l[0].GetName() != "items" || l[0].GetFormat() != format || l[0].GetIsDocumentIndex() {
				t.Errorf("ListIndexes = %v", l)
			}
			wantFile := map[string]string{"json": "root/items/index.json", "protobuf": "root/items/index.pb", "segmented": "root/items/index.pb.segments"}[format]
			if ok, _ := ts.storage.PathExists(ctx, wantFile); !ok {
				t.Errorf("%s was not written", wantFile)
			}
			must[*vectrapb.DeleteIndexResponse](t, "DeleteIndex")(c.DeleteIndex(ctx, &vectrapb.DeleteIndexRequest{IndexName: "items"}))
			if ok, _ := ts.storage.PathExists(ctx, "root/items"); ok {
				t.Error("DeleteIndex left the folder")
			}
		})
	}
}

func TestDocumentRPCs(t *testing.T) {
	ctx := t.Context()
	ts := startServer(t, nil)
	c := ts.client
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{
		IndexName: "docs", Format: "protobuf", IsDocumentIndex: true, DocumentConfig: &vectrapb.DocumentIndexConfig{ChunkSize: 24},
	}))
	text := "the quick brown fox jumps over the lazy dog while the small cat sleeps on the warm mat near the door"
	up := must[*vectrapb.UpsertDocumentResponse](t, "UpsertDocument")(c.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{
		IndexName: "docs", Uri: "doc://animals", Text: text, DocType: "txt", Metadata: map[string]*vectrapb.MetadataValue{"topic": str("animals")},
	}))
	must[*vectrapb.UpsertDocumentResponse](t, "UpsertDocument 2")(c.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{
		IndexName: "docs", Uri: "doc://weather", Text: "rain and wind and cold weather all week long in the north", Metadata: map[string]*vectrapb.MetadataValue{"topic": str("weather")},
	}))
	docs := must[*vectrapb.ListDocumentsResponse](t, "ListDocuments")(c.ListDocuments(ctx, &vectrapb.ListDocumentsRequest{IndexName: "docs"}))
	if d := docs.GetDocuments(); len(d) != 2 || !slices.ContainsFunc(d, func(x *vectrapb.DocumentInfo) bool {
		return x.GetUri() == "doc://animals" && x.GetDocumentId() == up.GetDocumentId()
	}) {
		t.Errorf("ListDocuments = %v", d)
	}
	for _, bm25 := range []bool{false, true} {
		res := must[*vectrapb.QueryDocumentsResponse](t, "QueryDocuments")(c.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "docs", Query: "lazy dog", UseBm25: bm25}))
		r := res.GetResults()
		if len(r) == 0 || r[0].GetUri() != "doc://animals" || len(r[0].GetChunks()) == 0 {
			t.Fatalf("QueryDocuments (bm25 %v) = %v", bm25, r)
		}
		for _, ch := range r[0].GetChunks() {
			if ch.GetText() == "" || !strings.Contains(text, strings.TrimSpace(ch.GetText())) {
				t.Errorf("chunk text %q is not a piece of the document", ch.GetText())
			}
			if want := uint32(len(testkit.Chars{}.Encode(ch.GetText()))); ch.GetTokenCount() != want {
				t.Errorf("chunk %q token_count = %d, want %d", ch.GetText(), ch.GetTokenCount(), want)
			}
		}
	}
	filtered := must[*vectrapb.QueryDocumentsResponse](t, "QueryDocuments filtered")(c.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "docs", Query: "lazy dog", Filter: filter(`{"topic":"weather"}`)}))
	if r := filtered.GetResults(); len(r) != 1 || r[0].GetUri() != "doc://weather" {
		t.Errorf("QueryDocuments with a filter = %v", r)
	}
	cat := must[*vectrapb.GetCatalogStatsResponse](t, "GetCatalogStats")(c.GetCatalogStats(ctx, &vectrapb.GetCatalogStatsRequest{IndexName: "docs"}))
	if cat.GetDocumentCount() != 2 || cat.GetChunkCount() < 3 || cat.GetVersion() != 1 {
		t.Errorf("GetCatalogStats = %v", cat)
	}
	must[*vectrapb.DeleteDocumentResponse](t, "DeleteDocument")(c.DeleteDocument(ctx, &vectrapb.DeleteDocumentRequest{IndexName: "docs", Uri: "doc://weather"}))
	must[*vectrapb.DeleteDocumentResponse](t, "DeleteDocument of a missing uri")(c.DeleteDocument(ctx, &vectrapb.DeleteDocumentRequest{IndexName: "docs", Uri: "doc://never"}))
	docs = must[*vectrapb.ListDocumentsResponse](t, "ListDocuments")(c.ListDocuments(ctx, &vectrapb.ListDocumentsRequest{IndexName: "docs"}))
	if len(docs.GetDocuments()) != 1 {
		t.Errorf("after DeleteDocument: %v", docs.GetDocuments())
	}
	// Item RPCs work on a document index too.
	must[*vectrapb.InsertItemResponse](t, "InsertItem into a document index")(c.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: "docs", Vector: testkit.WordVector("x", 8)}))
	health := must[*vectrapb.HealthcheckResponse](t, "Healthcheck")(c.Healthcheck(ctx, &vectrapb.HealthcheckRequest{}))
	if health.GetStatus() != "ok" || health.GetLoadedIndexes() != 1 {
		t.Errorf("Healthcheck = %v", health)
	}
}

// Every validation error of every handler, with Vectra's code and message
// (or Folio's fix).
func TestValidationErrors(t *testing.T) {
	ctx := t.Context()
	ts := startServer(t, nil)
	c := ts.client
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "plain"}))
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "docs", IsDocumentIndex: true}))
	must[*vectrapb.InsertItemResponse](t, "InsertItem")(c.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: "plain", Id: "a", Vector: []float32{1, 2, 3, 4, 5, 6, 7, 8}}))
	tests := []struct {
		name string
		call func() error
		code codes.Code
		msg  string
	}{
		{"CreateIndex without a name", func() error { _, err := c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{}); return err }, codes.InvalidArgument, "index_name is required"},
		{"CreateIndex duplicate", func() error {
			_, err := c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "plain"})
			return err
		}, codes.AlreadyExists, "Index already exists: plain"},
		{"CreateIndex escaping the root", func() error {
			_, err := c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "../x"})
			return err
		}, codes.InvalidArgument, ""},
		{"CreateIndex with a 300-byte name", func() error {
			_, err := c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: strings.Repeat("n", 300)})
			return err
		}, codes.InvalidArgument, ""},
		{"CreateIndex with a 10,000-byte name", func() error {
			_, err := c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: strings.Repeat("n", 10_000)})
			return err
		}, codes.InvalidArgument, ""},
		{"CreateIndex with a newline in the name", func() error {
			_, err := c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "a\nb"})
			return err
		}, codes.InvalidArgument, ""},
		{"CreateIndex unknown format", func() error {
			_, err := c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "x", Format: "xml"})
			return err
		}, codes.InvalidArgument, ""},
		{"DeleteIndex without a name", func() error { _, err := c.DeleteIndex(ctx, &vectrapb.DeleteIndexRequest{}); return err }, codes.InvalidArgument, "index_name is required"},
		{"DeleteIndex unknown", func() error {
			_, err := c.DeleteIndex(ctx, &vectrapb.DeleteIndexRequest{IndexName: "nope"})
			return err
		}, codes.NotFound, "Index not found: nope"},
		{"InsertItem without a name", func() error { _, err := c.InsertItem(ctx, &vectrapb.InsertItemRequest{}); return err }, codes.InvalidArgument, "index_name is required"},
		{"InsertItem unknown index", func() error { _, err := c.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: "nope"}); return err }, codes.NotFound, "Index not found: nope"},
		{"InsertItem with neither text nor vector", func() error { _, err := c.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: "plain"}); return err }, codes.InvalidArgument, "Either text or vector must be provided"},
		{"InsertItem duplicate id", func() error {
			_, err := c.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: "plain", Id: "a", Vector: []float32{1, 2, 3, 4, 5, 6, 7, 8}})
			return err
		}, codes.AlreadyExists, ""},
		{"InsertItem wrong dimension", func() error {
			_, err := c.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: "plain", Vector: []float32{1, 2}})
			return err
		}, codes.InvalidArgument, ""},
		{"UpsertItem without a name", func() error { _, err := c.UpsertItem(ctx, &vectrapb.UpsertItemRequest{Id: "a"}); return err }, codes.InvalidArgument, "index_name is required"},
		{"UpsertItem without an id", func() error { _, err := c.UpsertItem(ctx, &vectrapb.UpsertItemRequest{IndexName: "nope"}); return err }, codes.InvalidArgument, "id is required for upsert"},
		{"UpsertItem unknown index", func() error {
			_, err := c.UpsertItem(ctx, &vectrapb.UpsertItemRequest{IndexName: "nope", Id: "a"})
			return err
		}, codes.NotFound, "Index not found: nope"},
		{"BatchInsertItems without a name", func() error { _, err := c.BatchInsertItems(ctx, &vectrapb.BatchInsertItemsRequest{}); return err }, codes.InvalidArgument, "index_name is required"},
		{"BatchInsertItems unknown index", func() error {
			_, err := c.BatchInsertItems(ctx, &vectrapb.BatchInsertItemsRequest{IndexName: "nope"})
			return err
		}, codes.NotFound, "Index not found: nope"},
		{"BatchInsertItems item with neither", func() error {
			_, err := c.BatchInsertItems(ctx, &vectrapb.BatchInsertItemsRequest{IndexName: "plain", Items: []*vectrapb.InsertItemRequest{{Text: "x"}, {}}})
			return err
		}, codes.InvalidArgument, "Either text or vector must be provided"},
		{"GetItem without a name", func() error { _, err := c.GetItem(ctx, &vectrapb.GetItemRequest{Id: "a"}); return err }, codes.InvalidArgument, "index_name is required"},
		{"GetItem without an id", func() error { _, err := c.GetItem(ctx, &vectrapb.GetItemRequest{IndexName: "plain"}); return err }, codes.InvalidArgument, "id is required"},
		{"GetItem unknown id", func() error {
			_, err := c.GetItem(ctx, &vectrapb.GetItemRequest{IndexName: "plain", Id: "zz"})
			return err
		}, codes.NotFound, "Item not found: zz"},
		{"DeleteItem without an id", func() error { _, err := c.DeleteItem(ctx, &vectrapb.DeleteItemRequest{IndexName: "plain"}); return err }, codes.InvalidArgument, "id is required"},
		{"ListItems without a name", func() error { _, err := c.ListItems(ctx, &vectrapb.ListItemsRequest{}); return err }, codes.InvalidArgument, "index_name is required"},
		{"ListItems bad JSON filter", func() error {
			_, err := c.ListItems(ctx, &vectrapb.ListItemsRequest{IndexName: "plain", Filter: filter(`{"a":`)})
			return err
		}, codes.InvalidArgument, "Invalid filter_json: must be valid JSON"},
		{"ListItems JSON that is no filter", func() error {
			_, err := c.ListItems(ctx, &vectrapb.ListItemsRequest{IndexName: "plain", Filter: filter(`{"a":{"$regex":"x"}}`)})
			return err
		}, codes.InvalidArgument, ""},
		{"QueryItems without a name", func() error { _, err := c.QueryItems(ctx, &vectrapb.QueryItemsRequest{}); return err }, codes.InvalidArgument, "index_name is required"},
		{"QueryItems with neither", func() error { _, err := c.QueryItems(ctx, &vectrapb.QueryItemsRequest{IndexName: "plain"}); return err }, codes.InvalidArgument, "Either text or vector must be provided"},
		{"QueryItems filter array", func() error {
			_, err := c.QueryItems(ctx, &vectrapb.QueryItemsRequest{IndexName: "plain", Text: "x", Filter: filter(`[1]`)})
			return err
		}, codes.InvalidArgument, ""},
		{"QueryDocuments without a name", func() error { _, err := c.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{}); return err }, codes.InvalidArgument, "index_name is required"},
		{"QueryDocuments plain index", func() error {
			_, err := c.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "plain", Query: "x"})
			return err
		}, codes.FailedPrecondition, `Index "plain" is not a document index`},
		{"QueryDocuments without a query", func() error {
			_, err := c.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "docs"})
			return err
		}, codes.InvalidArgument, "query is required"},
		{"UpsertDocument without a name", func() error { _, err := c.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{}); return err }, codes.InvalidArgument, "index_name is required"},
		{"UpsertDocument without a uri", func() error {
			_, err := c.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{IndexName: "nope"})
			return err
		}, codes.InvalidArgument, "uri is required"},
		{"UpsertDocument without text", func() error {
			_, err := c.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{IndexName: "nope", Uri: "u"})
			return err
		}, codes.InvalidArgument, "text is required"},
		{"UpsertDocument unknown index", func() error {
			_, err := c.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{IndexName: "nope", Uri: "u", Text: "t"})
			return err
		}, codes.NotFound, "Index not found: nope"},
		{"DeleteDocument without a uri", func() error {
			_, err := c.DeleteDocument(ctx, &vectrapb.DeleteDocumentRequest{IndexName: "docs"})
			return err
		}, codes.InvalidArgument, "uri is required"},
		{"ListDocuments plain index", func() error {
			_, err := c.ListDocuments(ctx, &vectrapb.ListDocumentsRequest{IndexName: "plain"})
			return err
		}, codes.FailedPrecondition, `Index "plain" is not a document index`},
		{"GetIndexStats without a name", func() error { _, err := c.GetIndexStats(ctx, &vectrapb.GetIndexStatsRequest{}); return err }, codes.InvalidArgument, "index_name is required"},
		{"GetCatalogStats plain index", func() error {
			_, err := c.GetCatalogStats(ctx, &vectrapb.GetCatalogStatsRequest{IndexName: "plain"})
			return err
		}, codes.FailedPrecondition, `Index "plain" is not a document index`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			st, _ := status.FromError(err)
			if st.Code() != tt.code || (tt.msg != "" && st.Message() != tt.msg) {
				t.Errorf("got %v %q, want %v %q", st.Code(), st.Message(), tt.code, tt.msg)
			}
		})
	}
	// A failed batch inserts nothing.
	stats := must[*vectrapb.GetIndexStatsResponse](t, "GetIndexStats")(c.GetIndexStats(ctx, &vectrapb.GetIndexStatsRequest{IndexName: "plain"}))
	if stats.GetItemCount() != 1 {
		t.Errorf("items after the failed calls: %d, want 1", stats.GetItemCount())
	}
}

func TestWithoutEmbeddingsIsFailedPrecondition(t *testing.T) {
	ctx := t.Context()
	ts := startServer(t, func(c *grpcserver.Options) { c.Embeddings = nil })
	c := ts.client
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "docs", IsDocumentIndex: true}))
	for name, call := range map[string]func() error{
		"InsertItem by text": func() error {
			_, err := c.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: "docs", Text: "x"})
			return err
		},
		"QueryDocuments": func() error {
			_, err := c.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "docs", Query: "x"})
			return err
		},
		"UpsertDocument": func() error {
			_, err := c.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{IndexName: "docs", Uri: "u", Text: "t"})
			return err
		},
	} {
		if code := status.Code(call()); code != codes.FailedPrecondition {
			t.Errorf("%s without embeddings: %v, want FailedPrecondition", name, code)
		}
	}
}

func TestBatchInsertEmbedsInFewCalls(t *testing.T) {
	ctx := t.Context()
	ts := startServer(t, nil)
	ts.emb.Model = testkit.Words{Tokens: 40} // three 13-character texts per call
	c := ts.client
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "ix"}))
	var items []*vectrapb.InsertItemRequest
	for i := range 9 {
		items = append(items, &vectrapb.InsertItemRequest{Text: fmt.Sprintf("text number %d", i)})
	}
	must[*vectrapb.BatchInsertItemsResponse](t, "BatchInsertItems")(c.BatchInsertItems(ctx, &vectrapb.BatchInsertItemsRequest{IndexName: "ix", Items: items}))
	if calls, inputs := ts.emb.Calls(), ts.emb.Inputs(); calls != 3 || inputs != 9 {
		t.Errorf("%d embeddings calls for %d inputs, want 3 for 9", calls, inputs)
	}
}

func TestSingleMode(t *testing.T) {
	ctx := t.Context()
	root := startServer(t, nil)
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(root.client.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "one", Format: "protobuf"}))
	must[*vectrapb.InsertItemResponse](t, "InsertItem")(root.client.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: "one", Id: "x", Vector: testkit.WordVector("x", 8)}))
	single := startServer(t, func(c *grpcserver.Options) {
		c.RootDir, c.IndexPath = "", "root/one"
		c.Storage = root.storage
	})
	for _, name := range []string{"one", "whatever"} {
		got, err := single.client.GetItem(ctx, &vectrapb.GetItemRequest{IndexName: name, Id: "x"})
		if err != nil || got.GetItem().GetId() != "x" {
			t.Errorf("GetItem through %q in single mode: %v, %v", name, got, err)
		}
	}
	list := must[*vectrapb.ListIndexesResponse](t, "ListIndexes")(single.client.ListIndexes(ctx, &vectrapb.ListIndexesRequest{}))
	if l := list.GetIndexes(); len(l) != 1 || l[0].GetName() != "one" || l[0].GetFormat() != "protobuf" {
		t.Errorf("ListIndexes in single mode = %v", l)
	}
}

func TestRescanPicksUpAndDropsFolders(t *testing.T) {
	ctx := t.Context()
	ts := startServer(t, func(c *grpcserver.Options) { c.ScanInterval = 5 * time.Millisecond })
	other := startServer(t, func(c *grpcserver.Options) { c.Storage = ts.storage })
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex elsewhere")(other.client.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "late"}))
	names := func() []string {
		l, err := ts.client.ListIndexes(ctx, &vectrapb.ListIndexesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range l.GetIndexes() {
			out = append(out, x.GetName())
		}
		return out
	}
	waitFor(t, "the rescan to find the new folder", func() bool { return slices.Contains(names(), "late") })
	if err := ts.storage.DeleteFolder(ctx, "root/late"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the rescan to drop the deleted folder", func() bool { return !slices.Contains(names(), "late") })
}

func TestShutdownDrainsAnInFlightCall(t *testing.T) {
	ctx := t.Context()
	ts := startServer(t, nil)
	c := ts.client
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "ix"}))
	ts.emb.Gate, ts.emb.Entered = make(chan struct{}), make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		_, err := c.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: "ix", Id: "late", Text: "slow to embed"})
		done <- err
	}()
	<-ts.emb.Entered // the call is in flight
	stopped := make(chan error, 1)
	go func() { stopped <- ts.srv.Shutdown(context.Background()) }()
	select {
	case <-ts.srv.Done():
		t.Fatal("the server stopped with a call in flight")
	case <-time.After(100 * time.Millisecond):
	}
	close(ts.emb.Gate)
	if err := <-done; err != nil {
		t.Fatalf("the in-flight call failed: %v", err)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if _, err := c.Healthcheck(ctx, &vectrapb.HealthcheckRequest{}); status.Code(err) != codes.Unavailable {
		t.Fatalf("a call after Shutdown: %v, want Unavailable", err)
	}
}

func TestShutdownRPC(t *testing.T) {
	ts := startServer(t, nil)
	if _, err := ts.client.Shutdown(t.Context(), &vectrapb.ShutdownRequest{}); err != nil {
		t.Fatalf("Shutdown RPC: %v", err)
	}
	select {
	case <-ts.srv.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop after the Shutdown RPC")
	}
}

func TestHealthAndReflection(t *testing.T) {
	ctx := t.Context()
	ts := startServer(t, nil)
	h, err := healthpb.NewHealthClient(ts.conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health: %v, %v", h, err)
	}
	stream, err := reflectionpb.NewServerReflectionClient(ts.conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var services []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		services = append(services, s.GetName())
	}
	if !slices.Contains(services, "vectra.VectraService") || !slices.Contains(services, "grpc.health.v1.Health") {
		t.Fatalf("reflection lists %q", services)
	}
}

func TestMaxMessageBytes(t *testing.T) {
	ctx := t.Context()
	ts := startServer(t, func(c *grpcserver.Options) { c.MaxMessageBytes = 1024 })
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(ts.client.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "ix"}))
	_, err := ts.client.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: "ix", Vector: make([]float32, 1000)})
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("a request over MaxMessageBytes: %v, want ResourceExhausted", err)
	}
}

func TestCancelledCallIsCancelled(t *testing.T) {
	ts := startServer(t, nil)
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(ts.client.CreateIndex(t.Context(), &vectrapb.CreateIndexRequest{IndexName: "ix"}))
	ts.emb.Gate = make(chan struct{})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := ts.client.QueryItems(ctx, &vectrapb.QueryItemsRequest{IndexName: "ix", Text: "never embedded"})
	if code := status.Code(err); code != codes.DeadlineExceeded {
		t.Fatalf("a call past its deadline: %v, want DeadlineExceeded", err)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for name, cfg := range map[string]grpcserver.Options{
		"both paths":   {Config: manager.Config{IndexPath: "a", RootDir: "b", Formats: formats}},
		"bad port":     {Port: -1, Config: manager.Config{Formats: formats}},
		"half TLS":     {TLSCertFile: "cert.pem", Config: manager.Config{Formats: formats}},
		"no storage":   {Config: manager.Config{Formats: formats}},
		"no formats":   {},
		"negative max": {MaxMessageBytes: -1, Config: manager.Config{Formats: formats}},
	} {
		if _, err := grpcserver.New(&cfg); !errors.Is(err, core.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
}

// Concurrent writers on one index never fail and never lose a write.
func TestConcurrentWritesAreSerialised(t *testing.T) {
	ctx := t.Context()
	ts := startServer(t, nil)
	c := ts.client
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "docs", IsDocumentIndex: true}))
	var wg sync.WaitGroup
	const workers, each = 8, 15
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				var err error
				switch i % 3 {
				case 0:
					_, err = c.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: "docs", Id: fmt.Sprintf("i-%d-%d", w, i), Text: "item text"})
				case 1:
					_, err = c.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{IndexName: "docs", Uri: fmt.Sprintf("doc-%d-%d", w, i), Text: "some document text to chunk"})
				default:
					_, err = c.QueryItems(ctx, &vectrapb.QueryItemsRequest{IndexName: "docs", Text: "item"})
				}
				if err != nil {
					t.Errorf("worker %d call %d: %v", w, i, err)
				}
			}
		})
	}
	wg.Wait()
	docs := must[*vectrapb.ListDocumentsResponse](t, "ListDocuments")(c.ListDocuments(ctx, &vectrapb.ListDocumentsRequest{IndexName: "docs"}))
	if n := len(docs.GetDocuments()); n != workers*5 {
		t.Errorf("%d documents, want %d", n, workers*5)
	}
	for w := range workers {
		for i := 0; i < each; i += 3 {
			if _, err := c.GetItem(ctx, &vectrapb.GetItemRequest{IndexName: "docs", Id: fmt.Sprintf("i-%d-%d", w, i)}); err != nil {
				t.Errorf("item i-%d-%d: %v", w, i, err)
			}
		}
	}
}

// DocumentRanking "fusion" ranks every document query by rank fusion,
// whatever use_bm25 says; by default the request's use_bm25 picks Vectra's
// ranking, a document scored by the mean of its chunks' scores.
func TestDocumentRanking(t *testing.T) {
	ctx := t.Context()
	text := "the quick brown fox jumps over the lazy dog while the small cat sleeps on the warm mat near the door"
	for _, ranking := range []string{grpcserver.RankingVectra, grpcserver.RankingFusion} {
		ts := startServer(t, func(o *grpcserver.Options) { o.DocumentRanking = ranking })
		c := ts.client
		must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{
			IndexName: "docs", Format: "protobuf", IsDocumentIndex: true, DocumentConfig: &vectrapb.DocumentIndexConfig{ChunkSize: 24},
		}))
		must[*vectrapb.UpsertDocumentResponse](t, "UpsertDocument")(c.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{IndexName: "docs", Uri: "doc://animals", Text: text}))
		for _, bm25 := range []bool{false, true} {
			res := must[*vectrapb.QueryDocumentsResponse](t, "QueryDocuments")(c.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "docs", Query: "lazy dog", UseBm25: bm25}))
			r := res.GetResults()
			if len(r) != 1 || len(r[0].GetChunks()) == 0 {
				t.Fatalf("ranking %q, bm25 %v: %v", ranking, bm25, r)
			}
			var sum float64
			for _, ch := range r[0].GetChunks() {
				sum += ch.GetScore()
			}
			best := r[0].GetChunks()[0].GetScore()
			switch mean := sum / float64(len(r[0].GetChunks())); ranking {
			case grpcserver.RankingFusion:
				if r[0].GetScore() != best || best <= 0 || best > 2.0/61 {
					t.Errorf("fusion, bm25 %v: document %v, best chunk %v; want the best chunk's fused score, at most 2/61", bm25, r[0].GetScore(), best)
				}
			default:
				if math.Abs(r[0].GetScore()-mean) > 1e-9 {
					t.Errorf("Vectra's, bm25 %v: document %v, want the mean of its chunks' scores %v", bm25, r[0].GetScore(), mean)
				}
			}
		}
	}
	_, err := grpcserver.New(&grpcserver.Options{DocumentRanking: "borda", Config: manager.Config{RootDir: "root", Formats: formats, IndexOptions: core.IndexOptions{Storage: core.NewMemoryStorage()}}})
	if !errors.Is(err, core.ErrInvalidArgument) {
		t.Errorf("DocumentRanking borda: %v, want ErrInvalidArgument", err)
	}
}
