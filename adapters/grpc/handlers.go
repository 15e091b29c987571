package grpcserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

// Request defaults, as Vectra's handlers apply them to zero values.
const (
	defaultTopK         = 10
	defaultMaxDocuments = 10
	defaultMaxChunks    = 50
	defaultChunkSize    = 512
)

// service implements vectra.VectraService. Each handler validates its
// request in Vectra's order, with Vectra's messages.
type service struct {
	vectrapb.UnimplementedVectraServiceServer
	s *IndexServer
}

func (v *service) manager() *manager.Manager { return v.s.manager }

// index looks up a served index: INVALID_ARGUMENT "index_name is required"
// for none, NOT_FOUND "Index not found: <name>" for an unknown one.
func (v *service) index(name string) (*manager.Index, error) {
	if name == "" {
		return nil, invalid("index_name is required")
	}
	mi, ok := v.manager().GetIndex(name)
	if !ok {
		return nil, status.Errorf(codes.NotFound, "Index not found: %s", name)
	}
	return mi, nil
}

// documentIndex is index for a document index: FAILED_PRECONDITION
// `Index "<name>" is not a document index` for a plain one.
func (v *service) documentIndex(name string) (*manager.Index, error) {
	mi, err := v.index(name)
	if err != nil {
		return nil, err
	}
	if !mi.IsDocumentIndex() {
		return nil, status.Errorf(codes.FailedPrecondition, "Index %q is not a document index", name)
	}
	return mi, nil
}

// write runs fn holding the index's write lock.
func (v *service) write(ctx context.Context, mi *manager.Index, fn func() error) error {
	unlock, err := v.s.writes.lock(ctx, mi.Index)
	if err != nil {
		return toStatus(err)
	}
	defer unlock()
	return toStatus(fn())
}

func (v *service) CreateIndex(ctx context.Context, req *vectrapb.CreateIndexRequest) (*vectrapb.CreateIndexResponse, error) {
	if req.GetIndexName() == "" {
		return nil, invalid("index_name is required")
	}
	cfg := manager.CreateConfig{Format: req.GetFormat(), IsDocumentIndex: req.GetIsDocumentIndex(), Version: 1}
	if dc := req.GetDocumentConfig(); dc != nil {
		cfg.Version = int(max(dc.GetVersion(), 1))
		cfg.ChunkSize = int(dc.GetChunkSize())
		if cfg.ChunkSize == 0 {
			cfg.ChunkSize = defaultChunkSize
		}
		cfg.ChunkOverlap = int(dc.GetChunkOverlap())
	}
	if _, err := v.manager().CreateIndex(ctx, req.GetIndexName(), cfg); err != nil {
		if errors.Is(err, core.ErrIndexExists) {
			return nil, status.Errorf(codes.AlreadyExists, "Index already exists: %s", req.GetIndexName())
		}
		return nil, toStatus(err)
	}
	return &vectrapb.CreateIndexResponse{}, nil
}

func (v *service) DeleteIndex(ctx context.Context, req *vectrapb.DeleteIndexRequest) (*vectrapb.DeleteIndexResponse, error) {
	mi, err := v.index(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	if err := v.write(ctx, mi, func() error { return v.manager().DeleteIndex(ctx, mi.Name) }); err != nil {
		return nil, err
	}
	v.s.writes.forget(mi.Index)
	if mi.Documents != nil {
		v.s.docs.Delete(mi.Documents)
	}
	return &vectrapb.DeleteIndexResponse{}, nil
}

func (v *service) ListIndexes(context.Context, *vectrapb.ListIndexesRequest) (*vectrapb.ListIndexesResponse, error) {
	out := &vectrapb.ListIndexesResponse{Indexes: []*vectrapb.IndexInfo{}}
	for _, mi := range v.manager().ListIndexes() {
		out.Indexes = append(out.Indexes, &vectrapb.IndexInfo{Name: mi.Name, Format: mi.Format, IsDocumentIndex: mi.IsDocumentIndex()})
	}
	return out, nil
}

func (v *service) InsertItem(ctx context.Context, req *vectrapb.InsertItemRequest) (*vectrapb.InsertItemResponse, error) {
	mi, err := v.index(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	vec, err := v.vector(ctx, mi, req.GetVector(), req.GetText())
	if err != nil {
		return nil, err
	}
	var stored core.IndexItem
	err = v.write(ctx, mi, func() (err error) {
		stored, err = mi.Index.InsertItem(ctx, core.IndexItem{ID: req.GetId(), Vector: vec, Metadata: fromProtoMetadata(req.GetMetadata())})
		return err
	})
	if err != nil {
		return nil, err
	}
	return &vectrapb.InsertItemResponse{Id: stored.ID}, nil
}

func (v *service) UpsertItem(ctx context.Context, req *vectrapb.UpsertItemRequest) (*vectrapb.UpsertItemResponse, error) {
	if req.GetIndexName() == "" {
		return nil, invalid("index_name is required")
	}
	if req.GetId() == "" {
		return nil, invalid("id is required for upsert")
	}
	mi, err := v.index(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	vec, err := v.vector(ctx, mi, req.GetVector(), req.GetText())
	if err != nil {
		return nil, err
	}
	err = v.write(ctx, mi, func() error {
		_, err := mi.Index.UpsertItem(ctx, core.IndexItem{ID: req.GetId(), Vector: vec, Metadata: fromProtoMetadata(req.GetMetadata())})
		return err
	})
	if err != nil {
		return nil, err
	}
	return &vectrapb.UpsertItemResponse{Id: req.GetId()}, nil
}

func (v *service) BatchInsertItems(ctx context.Context, req *vectrapb.BatchInsertItemsRequest) (*vectrapb.BatchInsertItemsResponse, error) {
	mi, err := v.index(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	vectors, err := v.batchVectors(ctx, mi, req.GetItems())
	if err != nil {
		return nil, err
	}
	items := make([]core.IndexItem, len(req.GetItems()))
	for i, it := range req.GetItems() {
		items[i] = core.IndexItem{ID: it.GetId(), Vector: vectors[i], Metadata: fromProtoMetadata(it.GetMetadata())}
	}
	var stored []core.IndexItem
	err = v.write(ctx, mi, func() (err error) {
		stored, err = mi.Index.BatchInsertItems(ctx, items)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := &vectrapb.BatchInsertItemsResponse{Ids: make([]string, len(stored))}
	for i, it := range stored {
		out.Ids[i] = it.ID
	}
	return out, nil
}

func (v *service) GetItem(ctx context.Context, req *vectrapb.GetItemRequest) (*vectrapb.GetItemResponse, error) {
	if req.GetIndexName() == "" {
		return nil, invalid("index_name is required")
	}
	if req.GetId() == "" {
		return nil, invalid("id is required")
	}
	mi, err := v.index(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	it, ok, err := mi.Index.GetItem(ctx, req.GetId())
	if err != nil {
		return nil, toStatus(err)
	}
	if !ok {
		return nil, status.Errorf(codes.NotFound, "Item not found: %s", req.GetId())
	}
	return &vectrapb.GetItemResponse{Item: itemResult(it, 0)}, nil
}

func (v *service) DeleteItem(ctx context.Context, req *vectrapb.DeleteItemRequest) (*vectrapb.DeleteItemResponse, error) {
	if req.GetIndexName() == "" {
		return nil, invalid("index_name is required")
	}
	if req.GetId() == "" {
		return nil, invalid("id is required")
	}
	mi, err := v.index(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	if err := v.write(ctx, mi, func() error { return mi.Index.DeleteItem(ctx, req.GetId()) }); err != nil {
		return nil, err
	}
	return &vectrapb.DeleteItemResponse{}, nil
}

func (v *service) ListItems(ctx context.Context, req *vectrapb.ListItemsRequest) (*vectrapb.ListItemsResponse, error) {
	mi, err := v.index(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	filter, err := parseFilter(req.GetFilter())
	if err != nil {
		return nil, err
	}
	var items []core.IndexItem
	if filter != nil {
		items, err = mi.Index.ListItemsByMetadata(ctx, filter)
	} else {
		items, err = mi.Index.ListItems(ctx)
	}
	if err != nil {
		return nil, toStatus(err)
	}
	out := &vectrapb.ListItemsResponse{Items: make([]*vectrapb.ItemResult, len(items))}
	for i, it := range items {
		out.Items[i] = itemResult(it, 0)
	}
	return out, nil
}

func (v *service) QueryItems(ctx context.Context, req *vectrapb.QueryItemsRequest) (*vectrapb.QueryItemsResponse, error) {
	mi, err := v.index(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	topK := int(req.GetTopK())
	if topK == 0 {
		topK = defaultTopK
	}
	filter, err := parseFilter(req.GetFilter())
	if err != nil {
		return nil, err
	}
	if err := v.checkQueryText(req.GetText()); err != nil {
		return nil, err
	}
	vec, err := v.vector(ctx, mi, req.GetVector(), req.GetText())
	if err != nil {
		return nil, err
	}
	// Concurrent unfiltered calls on one index share their passes over the
	// vectors: the engine's Query joins a pass already running.
	hits, err := mi.Index.Query(ctx, core.ItemQuery{Vector: vec, Query: req.GetText(), TopK: topK, Filter: filter})
	if err != nil {
		return nil, toStatus(err)
	}
	out := &vectrapb.QueryItemsResponse{Results: make([]*vectrapb.ItemResult, len(hits))}
	for i, h := range hits {
		out.Results[i] = itemResult(h.Item, h.Score)
	}
	return out, nil
}

func (v *service) QueryDocuments(ctx context.Context, req *vectrapb.QueryDocumentsRequest) (*vectrapb.QueryDocumentsResponse, error) {
	mi, err := v.documentIndex(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	if req.GetQuery() == "" {
		return nil, invalid("query is required")
	}
	if err := v.checkQueryText(req.GetQuery()); err != nil {
		return nil, err
	}
	filter, err := parseFilter(req.GetFilter())
	if err != nil {
		return nil, err
	}
	opts := &core.DocumentQueryOptions{
		MaxDocuments: int(req.GetMaxDocuments()),
		MaxChunks:    int(req.GetMaxChunks()),
		Filter:       filter,
		IsBm25:       req.GetUseBm25(),
	}
	if opts.MaxDocuments == 0 {
		opts.MaxDocuments = defaultMaxDocuments
	}
	if opts.MaxChunks == 0 {
		opts.MaxChunks = defaultMaxChunks
	}
	// Concurrent calls on one index are answered together (coalesce.go).
	results, err := v.s.documentQueries(mi.Documents).query(ctx, core.DocumentQuery{Query: req.GetQuery(), Options: *opts})
	if err != nil {
		return nil, toStatus(err)
	}
	tok := mi.Documents.Tokenizer()
	out := &vectrapb.QueryDocumentsResponse{Results: make([]*vectrapb.DocumentResult, len(results))}
	for i, r := range results {
		texts, err := r.ChunkTexts(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, toStatus(ctx.Err())
			}
			texts = make([]string, len(r.Chunks)) // an unreadable text: empty chunks, as before
		}
		dr := &vectrapb.DocumentResult{Uri: r.URI(), DocumentId: r.ID(), Score: r.Score, Chunks: make([]*vectrapb.DocumentChunk, len(r.Chunks))}
		for j, c := range r.Chunks {
			dr.Chunks[j] = &vectrapb.DocumentChunk{Text: texts[j], Score: c.Score, TokenCount: uint32(len(tok.Encode(texts[j])))}
		}
		out.Results[i] = dr
	}
	return out, nil
}

func (v *service) UpsertDocument(ctx context.Context, req *vectrapb.UpsertDocumentRequest) (*vectrapb.UpsertDocumentResponse, error) {
	switch {
	case req.GetIndexName() == "":
		return nil, invalid("index_name is required")
	case req.GetUri() == "":
		return nil, invalid("uri is required")
	case req.GetText() == "":
		return nil, invalid("text is required")
	}
	mi, err := v.documentIndex(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	var doc *core.LocalDocument
	err = v.write(ctx, mi, func() (err error) {
		doc, err = mi.Documents.UpsertDocument(ctx, req.GetUri(), req.GetText(), req.GetDocType(), fromProtoMetadata(req.GetMetadata()), nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &vectrapb.UpsertDocumentResponse{DocumentId: doc.ID()}, nil
}

func (v *service) DeleteDocument(ctx context.Context, req *vectrapb.DeleteDocumentRequest) (*vectrapb.DeleteDocumentResponse, error) {
	switch {
	case req.GetIndexName() == "":
		return nil, invalid("index_name is required")
	case req.GetUri() == "":
		return nil, invalid("uri is required")
	}
	mi, err := v.documentIndex(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	if err := v.write(ctx, mi, func() error { return mi.Documents.DeleteDocument(ctx, req.GetUri()) }); err != nil {
		return nil, err
	}
	return &vectrapb.DeleteDocumentResponse{}, nil
}

func (v *service) ListDocuments(ctx context.Context, req *vectrapb.ListDocumentsRequest) (*vectrapb.ListDocumentsResponse, error) {
	mi, err := v.documentIndex(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	docs, err := mi.Documents.ListDocuments(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	out := &vectrapb.ListDocumentsResponse{Documents: make([]*vectrapb.DocumentInfo, len(docs))}
	for i, d := range docs {
		out.Documents[i] = &vectrapb.DocumentInfo{Uri: d.URI(), DocumentId: d.ID()}
	}
	return out, nil
}

func (v *service) GetIndexStats(ctx context.Context, req *vectrapb.GetIndexStatsRequest) (*vectrapb.GetIndexStatsResponse, error) {
	mi, err := v.index(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	st, err := mi.Index.GetIndexStats(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	return &vectrapb.GetIndexStatsResponse{
		Version:             uint32(st.Version),
		Format:              mi.Format,
		ItemCount:           uint32(st.Items),
		MetadataConfigCount: uint32(len(st.MetadataConfig.Indexed)),
	}, nil
}

func (v *service) GetCatalogStats(ctx context.Context, req *vectrapb.GetCatalogStatsRequest) (*vectrapb.GetCatalogStatsResponse, error) {
	mi, err := v.documentIndex(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	st, err := mi.Documents.GetCatalogStats(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	return &vectrapb.GetCatalogStatsResponse{
		Version:        uint32(st.Version),
		DocumentCount:  uint32(st.Documents),
		ChunkCount:     uint32(st.Chunks),
		MetadataCounts: map[string]uint32{},
	}, nil
}

func (v *service) Healthcheck(context.Context, *vectrapb.HealthcheckRequest) (*vectrapb.HealthcheckResponse, error) {
	return &vectrapb.HealthcheckResponse{
		Status:        "ok",
		UptimeSeconds: uint32(time.Since(v.s.started) / time.Second),
		LoadedIndexes: uint32(len(v.manager().ListIndexes())),
	}, nil
}

func (v *service) Shutdown(context.Context, *vectrapb.ShutdownRequest) (*vectrapb.ShutdownResponse, error) {
	// The reply goes out first: Shutdown drains the calls in flight, this
	// one included.
	go func() {
		if err := v.s.Shutdown(context.Background()); err != nil {
			v.s.log.Warn("grpcserver: shutdown", "err", err)
		}
	}()
	return &vectrapb.ShutdownResponse{}, nil
}

// vector resolves an item's or a query's vector: a non-empty vector wins;
// else non-empty text is embedded; else INVALID_ARGUMENT.
func (v *service) vector(ctx context.Context, mi *manager.Index, vec []float32, text string) ([]float32, error) {
	if len(vec) > 0 {
		return vec, nil
	}
	if text == "" {
		return nil, invalid("Either text or vector must be provided")
	}
	out, err := v.embed(ctx, mi, []string{text})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// batchVectors resolves every item's vector, embedding the texts of the
// items without one in as few calls as the model's MaxTokens allows.
func (v *service) batchVectors(ctx context.Context, mi *manager.Index, items []*vectrapb.InsertItemRequest) ([][]float32, error) {
	vectors := make([][]float32, len(items))
	var texts []string
	var at []int
	for i, it := range items {
		switch {
		case len(it.GetVector()) > 0:
			vectors[i] = it.GetVector()
		case it.GetText() != "":
			texts = append(texts, it.GetText())
			at = append(at, i)
		default:
			return nil, invalid("Either text or vector must be provided")
		}
	}
	limit := 0
	if mi.Embeddings != nil {
		limit = mi.Embeddings.MaxTokens()
	}
	for _, batch := range core.TokenBatches(texts, v.s.cfg.Tokenizer, limit) {
		out, err := v.embed(ctx, mi, texts[batch[0]:batch[1]])
		if err != nil {
			return nil, err
		}
		for k, vec := range out {
			vectors[at[batch[0]+k]] = vec
		}
	}
	return vectors, nil
}

// embed calls the index's model (manager.Index.Embeddings):
// FAILED_PRECONDITION without one, the context's code when the call ends,
// INTERNAL "Embeddings error: …" otherwise, as Vectra words it.
// checkQueryText answers INVALID_ARGUMENT for a query text over
// Options.MaxQueryBytes.
func (v *service) checkQueryText(text string) error {
	limit := v.s.cfg.MaxQueryBytes
	if limit == 0 {
		limit = DefaultMaxQueryBytes
	}
	if limit > 0 && len(text) > limit {
		return invalid(fmt.Sprintf("query text is %d bytes; the server takes at most %d", len(text), limit))
	}
	return nil
}

func (v *service) embed(ctx context.Context, mi *manager.Index, texts []string) ([][]float32, error) {
	model := mi.Embeddings
	if model == nil {
		return nil, status.Errorf(codes.FailedPrecondition, "No embeddings model configured on the server for index %q", mi.Name)
	}
	resp, err := model.CreateEmbeddings(ctx, texts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, toStatus(ctx.Err())
		}
		msg := err.Error()
		var ee *core.EmbeddingsError
		if errors.As(err, &ee) && ee.Message != "" {
			msg = ee.Message
		}
		return nil, status.Errorf(codes.Internal, "Embeddings error: %s", msg)
	}
	if resp.Status != core.EmbeddingsSuccess || len(resp.Output) != len(texts) {
		msg := resp.Message
		if msg == "" {
			msg = "unknown"
		}
		return nil, status.Error(codes.Internal, fmt.Sprintf("Embeddings error: %s", msg))
	}
	return resp.Output, nil
}
