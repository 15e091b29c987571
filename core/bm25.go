package core

import "context"

// bm25Index is the keyword index of hybrid queries. (Being written.)
type bm25Index struct{}

func (ix *LocalIndex) keywordHits(ctx context.Context, s *snapshot, sel selection, query string, k int, exclude []scored) ([]QueryResult, error) {
	return nil, nil
}

func (ix *LocalIndex) updateBM25(ctx context.Context, b *batch, s *snapshot) {}

func (ix *LocalIndex) readDocumentText(ctx context.Context, documentID string) (string, error) {
	return "", nil
}
