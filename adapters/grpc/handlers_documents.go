package grpcserver

import (
	"context"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/core"
)

func (v *service) QueryDocuments(ctx context.Context, req *vectrapb.QueryDocumentsRequest) (*vectrapb.QueryDocumentsResponse, error) {
	if err := checkQueryDocumentsRequest(req); err != nil {
		return nil, err
	}
	mi, err := v.documentIndex(req.GetIndexName())
	if err != nil {
		return nil, err
	}
	if req.GetQuery() == "" {
		return nil, errQueryRequired()
	}
	if err := v.checkQueryText(vectrapb.VectraService_QueryDocuments_FullMethodName, req.GetQuery()); err != nil {
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
	if v.s.cfg.DocumentRanking == RankingFusion {
		opts.IsBm25, opts.Fusion = true, core.FusionRRF
	}
	// Concurrent calls on one index are answered together (coalesce.go).
	qctx, end := v.s.cfg.Observer.phase(ctx, "folio.query")
	results, err := v.s.documentQueries(mi.Name, mi.Documents).query(qctx, core.DocumentQuery{Query: req.GetQuery(), Options: *opts})
	end(err)
	if err != nil {
		return nil, toStatus(err)
	}
	tok := mi.Documents.Tokenizer()
	out := &vectrapb.QueryDocumentsResponse{Results: make([]*vectrapb.DocumentResult, len(results))}
	rctx, end := v.s.cfg.Observer.phase(ctx, "folio.read_texts")
	defer func() { end(nil) }()
	for i, r := range results {
		texts, err := r.ChunkTexts(rctx)
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
	if err := checkUpsertDocumentRequest(req); err != nil {
		return nil, err
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
	if err := checkDeleteDocumentRequest(req); err != nil {
		return nil, err
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
	if err := checkListDocumentsRequest(req); err != nil {
		return nil, err
	}
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
