package grpcserver

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

func (v *service) InsertItem(ctx context.Context, req *vectrapb.InsertItemRequest) (*vectrapb.InsertItemResponse, error) {
	if err := checkInsertItemRequest(req); err != nil {
		return nil, err
	}
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
	if err := checkUpsertItemRequest(req); err != nil {
		return nil, err
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
	if err := checkBatchInsertItemsRequest(req); err != nil {
		return nil, err
	}
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
	if err := checkGetItemRequest(req); err != nil {
		return nil, err
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
	if err := checkDeleteItemRequest(req); err != nil {
		return nil, err
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
	if err := checkListItemsRequest(req); err != nil {
		return nil, err
	}
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
	if err := checkQueryItemsRequest(req); err != nil {
		return nil, err
	}
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
	if err := v.checkQueryText(vectrapb.VectraService_QueryItems_FullMethodName, req.GetText()); err != nil {
		return nil, err
	}
	vec, err := v.vector(ctx, mi, req.GetVector(), req.GetText())
	if err != nil {
		return nil, err
	}
	// Concurrent unfiltered calls on one index share their passes over the
	// vectors: the engine's Query joins a pass already running.
	qctx, end := v.s.cfg.Observer.phase(ctx, "folio.query")
	hits, err := mi.Index.Query(qctx, core.ItemQuery{Vector: vec, Query: req.GetText(), TopK: topK, Filter: filter})
	end(err)
	if err != nil {
		return nil, toStatus(err)
	}
	out := &vectrapb.QueryItemsResponse{Results: make([]*vectrapb.ItemResult, len(hits))}
	for i, h := range hits {
		out.Results[i] = itemResult(h.Item, h.Score)
	}
	return out, nil
}

// vector resolves an item's or a query's vector: a non-empty vector wins;
// else non-empty text is embedded; else INVALID_ARGUMENT.
func (v *service) vector(ctx context.Context, mi *manager.Index, vec []float32, text string) ([]float32, error) {
	if len(vec) > 0 {
		return vec, nil
	}
	if text == "" {
		return nil, errNoVector()
	}
	ectx, end := v.s.cfg.Observer.phase(ctx, "folio.embed")
	out, err := v.embed(ectx, mi, []string{text})
	end(err)
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
			return nil, errNoVector()
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
// Options.MaxQueryBytes, and tells the Observer.
func (v *service) checkQueryText(method, text string) error {
	limit := v.s.cfg.MaxQueryBytes
	if limit == 0 {
		limit = DefaultMaxQueryBytes
	}
	if limit > 0 && len(text) > limit {
		if f := v.s.cfg.Observer.Refused; f != nil {
			f(method, "query_too_large")
		}
		v.s.log.Info("grpcserver: call refused", "method", method, "reason", "query_too_large", "bytes", len(text), "limit", limit)
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
	if err != nil && ctx.Err() != nil {
		return nil, toStatus(ctx.Err())
	}
	vectors, err := core.EmbeddingsOutput(resp, err, len(texts))
	if err != nil {
		msg := "unknown"
		var ee *core.EmbeddingsError
		if errors.As(err, &ee) && ee.Message != "" {
			msg = ee.Message
		}
		return nil, status.Errorf(codes.Internal, "Embeddings error: %s", msg)
	}
	return vectors, nil
}
