package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/foliovec/folio/core/internal/docfields"
	"github.com/foliovec/folio/core/internal/meta"
	"github.com/foliovec/folio/core/internal/par"
)

// Defaults of DocumentQueryOptions.
const (
	defaultMaxDocuments = 10
	defaultMaxChunks    = 50
)

// QueryDocuments returns the documents whose chunks best match query, best
// first: the query, "\n" replaced by spaces, is embedded; the
// MaxChunks chunks nearest to it (plus keyword matches with IsBm25, which
// use the query as given) are grouped by document in the order they came;
// each document scores the mean of its chunks' scores; the documents are
// sorted by score, ties keeping that order, and the first MaxDocuments
// returned.
//
// Chunks whose document is not in the catalog are left out (see catalog.go;
// Vectra grouped them under the document "undefined"). The results' texts
// are read before QueryDocuments returns, so a result renders from the
// version it was found in even when a commit replaces its document
// meanwhile. No embeddings model
// is ErrEmbeddingsNotConfigured; negative options are ErrInvalidArgument;
// an invalid filter is ErrInvalidFilter.
func (d *LocalDocumentIndex) QueryDocuments(ctx context.Context, query string, opts *DocumentQueryOptions) ([]*LocalDocumentResult, error) {
	var o DocumentQueryOptions
	if opts != nil {
		o = *opts
	}
	out, err := d.queryDocuments(ctx, "query documents", []DocumentQuery{{Query: query, Options: o}})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// DocumentQuery is one query of QueryDocumentsBatch: the arguments of
// QueryDocuments.
type DocumentQuery struct {
	Query   string
	Options DocumentQueryOptions
}

// QueryDocumentsBatch answers many document queries at once, all from the
// same commit: result i is what QueryDocuments returns for queries[i]. The
// query texts are embedded together, in as few embeddings calls as the
// model's MaxTokens allows, and the vector searches share one pass over
// the vectors (QueryItemsBatch). An invalid query fails the whole batch
// with an error that names its position. The gRPC server answers
// concurrent QueryDocuments calls on one index through it.
func (d *LocalDocumentIndex) QueryDocumentsBatch(ctx context.Context, queries []DocumentQuery) ([][]*LocalDocumentResult, error) {
	return d.queryDocuments(ctx, "query documents batch", queries)
}

// queryDocuments is QueryDocumentsBatch, its errors naming op and, for one
// query, the query.
func (d *LocalDocumentIndex) queryDocuments(ctx context.Context, op string, queries []DocumentQuery) ([][]*LocalDocumentResult, error) {
	fail := func(i int, err error) error {
		if len(queries) == 1 {
			return WrapOp(ctx, op, queries[0].Query, err)
		}
		return fmt.Errorf("%w (query %d)", WrapOp(ctx, op, queries[i].Query, err), i)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // unchanged, as every method returns ctx's error
	}
	if d.embeddings == nil {
		return nil, fail(0, d.noModel())
	}
	qs := make([]DocumentQuery, len(queries))
	texts := make([]string, len(queries))
	for i, q := range queries {
		o := q.Options
		if o.MaxDocuments < 0 || o.MaxChunks < 0 || o.FusionK < 0 {
			return nil, fail(i, fmt.Errorf("maxDocuments %d, maxChunks %d, fusionK %d: %w", o.MaxDocuments, o.MaxChunks, o.FusionK, ErrInvalidArgument))
		}
		if o.Fusion != "" && o.Fusion != FusionRRF {
			return nil, fail(i, fmt.Errorf("fusion %q: want %q or none: %w", o.Fusion, FusionRRF, ErrInvalidArgument))
		}
		if o.FusionK == 0 {
			o.FusionK = defaultFusionK
		}
		if o.MaxDocuments == 0 {
			o.MaxDocuments = defaultMaxDocuments
		}
		if o.MaxChunks == 0 {
			o.MaxChunks = defaultMaxChunks
		}
		qs[i] = DocumentQuery{Query: q.Query, Options: o}
		texts[i] = strings.ReplaceAll(q.Query, "\n", " ")
	}
	if len(qs) == 0 {
		return [][]*LocalDocumentResult{}, nil
	}
	if _, err := d.catalog(ctx, op, qs[0].Query); err != nil {
		return nil, err
	}
	vectors, err := d.embedQueries(ctx, texts)
	if err != nil {
		return nil, fail(0, err)
	}
	items := make([]ItemQuery, len(qs))
	for i, q := range qs {
		o := q.Options
		items[i] = ItemQuery{Vector: vectors[i], Query: q.Query, TopK: o.MaxChunks, Filter: o.Filter, IsBm25: o.IsBm25, fusion: o.IsBm25 && o.Fusion == FusionRRF}
	}
	for attempt := 0; ; attempt++ {
		var results [][]QueryResult
		if len(items) == 1 {
			var one []QueryResult
			if one, err = d.Query(ctx, items[0]); err == nil {
				results = [][]QueryResult{one}
			}
		} else {
			results, err = d.QueryItemsBatch(ctx, items)
		}
		if err != nil {
			return nil, err
		}
		// The catalog is read after the queries: it is at least as new as
		// the snapshot they ran on.
		cat := d.cat.Load()
		out := make([][]*LocalDocumentResult, len(qs))
		var all []*LocalDocumentResult
		for i, q := range qs {
			out[i] = d.documentsOf(cat, results[i], q, items[i].fusion)
			all = append(all, out[i]...)
		}
		err = loadTexts(ctx, all)
		if err == nil {
			return out, nil
		}
		if errors.Is(err, fs.ErrNotExist) && attempt < vanishedRetries && d.newerState(ctx, func() bool { return d.cat.Load() == cat }) {
			continue // a commit replaced a result meanwhile: ask the newer state
		}
		return nil, fail(0, err)
	}
}

// documentsOf turns one query's chunk results into its documents, best
// first, at most q.Options.MaxDocuments, each knowing the query (Render
// focuses on its words).
func (d *LocalDocumentIndex) documentsOf(cat *DocumentCatalog, results []QueryResult, q DocumentQuery, fuse bool) []*LocalDocumentResult {
	o := q.Options
	if fuse {
		results = fuseRanks(results, o.FusionK)
	}
	docs := d.groupByDocument(cat, results)
	if fuse {
		var named []string
		if d.keywords.weights.Name > 0 {
			named = docfields.Words(strings.ToLower(q.Query))
		}
		for _, doc := range docs {
			doc.Score = doc.Chunks[0].Score // its best: results come sorted
			if len(named) > 0 && slices.Equal(named, docfields.FileWords(doc.URI())) {
				// The query is the document's file name: a third ranking,
				// of the documents so named, each first in it.
				doc.Score += 1 / float64(o.FusionK+1)
			}
		}
	}
	slices.SortStableFunc(docs, func(a, b *LocalDocumentResult) int { return cmp.Compare(b.Score, a.Score) })
	for _, doc := range docs {
		doc.query = q.Query
	}
	return docs[:min(o.MaxDocuments, len(docs))]
}

// embedQueries embeds query texts in as few calls as the model's MaxTokens
// allows (TokenBatches, with the index's tokenizer).
func (d *LocalDocumentIndex) embedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for _, run := range TokenBatches(texts, d.tokenizer, d.embeddings.MaxTokens()) {
		vs, err := d.embed(ctx, texts[run[0]:run[1]])
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

// fuseRanks is reciprocal rank fusion of a fusion query's results: the
// vector hits in rank order, then the keyword hits (marked isBm25) in
// rank order. Each chunk scores the sum of 1/(k+rank) over the rankings
// it is in; a chunk in both is kept as its vector hit. The result is
// sorted by that score, ties in the order first seen.
func fuseRanks(results []QueryResult, k int) []QueryResult {
	var fused []QueryResult
	at := map[string]int{} // item id → index in fused
	vectorRank, keywordRank := 0, 0
	for _, r := range results {
		var rank int
		if _, kw := r.Item.Metadata["isBm25"]; kw {
			keywordRank++
			rank = keywordRank
		} else {
			vectorRank++
			rank = vectorRank
		}
		score := 1 / float64(k+rank)
		if i, seen := at[r.Item.ID]; seen {
			fused[i].Score += score
			continue
		}
		at[r.Item.ID] = len(fused)
		r.Score = score
		fused = append(fused, r)
	}
	slices.SortStableFunc(fused, func(a, b QueryResult) int { return cmp.Compare(b.Score, a.Score) })
	return fused
}

// loadTexts reads the text of every document, several at once, so that a
// result renders from the version it was found in even if a commit
// replaces the document afterwards and removes its files.
func loadTexts(ctx context.Context, docs []*LocalDocumentResult) error {
	return par.Each(ctx, len(docs), maxSidecarReads, func(ctx context.Context, i int) error {
		_, err := docs[i].loadText(ctx)
		return err
	})
}

// ListDocuments returns every document that has chunks, in the order of
// their first chunk in the index, each with all its chunks scored 1
// (Vectra's listDocuments). Documents with no chunks (empty text) are not
// listed; chunks whose document is not in the catalog are left out.
func (d *LocalDocumentIndex) ListDocuments(ctx context.Context) ([]*LocalDocumentResult, error) {
	const op = "list documents"
	cat, err := d.catalog(ctx, op, d.FolderPath())
	if err != nil {
		return nil, err
	}
	items, err := d.ListItems(ctx)
	if err != nil {
		return nil, err
	}
	results := make([]QueryResult, len(items))
	for i, it := range items {
		results[i] = QueryResult{Item: it, Score: 1}
	}
	if c := d.cat.Load(); c != nil {
		cat = c
	}
	return d.groupByDocument(cat, results), nil
}

// groupByDocument groups chunk results by their document, in order of
// first appearance, leaving out chunks of documents not in c.
func (d *LocalDocumentIndex) groupByDocument(c *DocumentCatalog, results []QueryResult) []*LocalDocumentResult {
	var order []string
	groups := map[string][]QueryResult{}
	for _, r := range results {
		id, ok := meta.DocumentID(r.Item.Metadata)
		if !ok {
			continue
		}
		if _, known := c.IDToURI[id]; !known {
			continue
		}
		if _, seen := groups[id]; !seen {
			order = append(order, id)
		}
		groups[id] = append(groups[id], r)
	}
	docs := make([]*LocalDocumentResult, len(order))
	for i, id := range order {
		docs[i] = newLocalDocumentResult(d.document(id, c.IDToURI[id]), groups[id])
	}
	return docs
}
