package grpcserver

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

func (v *service) CreateIndex(ctx context.Context, req *vectrapb.CreateIndexRequest) (*vectrapb.CreateIndexResponse, error) {
	if err := checkCreateIndexRequest(req); err != nil {
		return nil, err
	}
	cfg := manager.CreateConfig{Format: req.GetFormat(), IsDocumentIndex: req.GetIsDocumentIndex(), Version: 1}
	if dc := req.GetDocumentConfig(); dc != nil {
		cfg.Version = int(max(dc.GetVersion(), 1))
		cfg.ChunkSize = int(dc.GetChunkSize()) // 0: core's default, Vectra's 512
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
	if err := checkDeleteIndexRequest(req); err != nil {
		return nil, err
	}
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

func (v *service) ListIndexes(_ context.Context, req *vectrapb.ListIndexesRequest) (*vectrapb.ListIndexesResponse, error) {
	if err := checkListIndexesRequest(req); err != nil {
		return nil, err
	}
	out := &vectrapb.ListIndexesResponse{Indexes: []*vectrapb.IndexInfo{}}
	for _, mi := range v.manager().ListIndexes() {
		out.Indexes = append(out.Indexes, &vectrapb.IndexInfo{Name: mi.Name, Format: mi.Format, IsDocumentIndex: mi.IsDocumentIndex()})
	}
	return out, nil
}

func (v *service) GetIndexStats(ctx context.Context, req *vectrapb.GetIndexStatsRequest) (*vectrapb.GetIndexStatsResponse, error) {
	if err := checkGetIndexStatsRequest(req); err != nil {
		return nil, err
	}
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
	if err := checkGetCatalogStatsRequest(req); err != nil {
		return nil, err
	}
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

func (v *service) Healthcheck(_ context.Context, req *vectrapb.HealthcheckRequest) (*vectrapb.HealthcheckResponse, error) {
	if err := checkHealthcheckRequest(req); err != nil {
		return nil, err
	}
	return &vectrapb.HealthcheckResponse{
		Status:        "ok",
		UptimeSeconds: uint32(time.Since(v.s.started) / time.Second),
		LoadedIndexes: uint32(len(v.manager().ListIndexes())),
	}, nil
}

func (v *service) Shutdown(_ context.Context, req *vectrapb.ShutdownRequest) (*vectrapb.ShutdownResponse, error) {
	if err := checkShutdownRequest(req); err != nil {
		return nil, err
	}
	// The reply goes out first: Shutdown drains the calls in flight, this
	// one included.
	go func() {
		if err := v.s.Shutdown(context.Background()); err != nil {
			v.s.log.Warn("grpcserver: shutdown", "err", err)
		}
	}()
	return &vectrapb.ShutdownResponse{}, nil
}
