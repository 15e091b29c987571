package core

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// LocalDocumentIndexConfig configures a LocalDocumentIndex.
type LocalDocumentIndexConfig struct {
	// IndexOptions are the options of the index underneath: Storage and
	// Codec (required in core), IndexName, Logger, StrictFilters,
	// FreshnessInterval (the catalog is watched too), QuantizedScan,
	// RerankFactor and RetainDropped (the files of replaced or deleted
	// documents are dropped likewise). DocReader is not used: the document
	// index reads its documents' texts itself. The chunk keys documentId,
	// startPos and endPos are always inline and can always be filtered on.
	IndexOptions
	// FolderPath is the index folder.
	FolderPath string
	// Embeddings embeds chunks and queries; needed by UpsertDocument and
	// QueryDocuments only.
	Embeddings EmbeddingsModel
	// Tokenizer counts tokens for chunking, rendering and embedding
	// batches. Required in core (ChunkingConfig.Tokenizer is used when it
	// is nil); the root package defaults it to o200k_base.
	Tokenizer Tokenizer
	// ChunkingConfig is how documents are split: 512-token chunks, no
	// overlap, separators kept, for every field left zero (see
	// ChunkingConfig). Its Tokenizer is replaced by Tokenizer when that is
	// set.
	ChunkingConfig ChunkingConfig
}

// UpsertDocumentOptions are the options of UpsertDocument.
type UpsertDocumentOptions struct {
	// Force re-embeds the document even when its content hash is
	// unchanged.
	Force bool
}

// DocumentQueryOptions are the options of QueryDocuments.
type DocumentQueryOptions struct {
	// MaxDocuments is the most documents returned; 0 means 10.
	MaxDocuments int
	// MaxChunks is the most chunks the vector search returns, across all
	// documents (not per document, whatever Vectra's documentation says);
	// 0 means 50.
	MaxChunks int
	// Filter selects chunks by their inline metadata (the document
	// metadata is copied into every chunk's).
	Filter Filter
	// IsBm25 adds keyword matches, as QueryItems does. The first hybrid
	// query after the index is loaded builds the keyword index, reading
	// every document's text once (a few seconds for tens of thousands of
	// chunks); commits keep it up to date from then on. A service can run
	// one hybrid query at start-up to take that cost there.
	IsBm25 bool
	// Fusion, with IsBm25, says how vector and keyword matches are ranked
	// together. "" is Vectra's way: up to 10 keyword matches, scored with
	// their raw BM25 scores (about 1 to 10), are appended to the vector
	// matches (cosine scores, -1 to 1), and a document scores the mean of
	// its chunks' scores, so one keyword match outweighs any semantic one.
	// FusionRRF is reciprocal rank fusion: MaxChunks chunks of each
	// ranking, each chunk scored 1/(FusionK+rank) for its rank in each
	// ranking it is in (rank 1 the best), summed; chunks sorted by that
	// score, and a document scored by its best chunk: one scale for both
	// kinds and for chunks and documents. A query that is a document's
	// file name without its extensions ("npm link" for npm-link.md,
	// "os.path" for os.path.rst.txt) adds 1/(FusionK+1) to that
	// document, as first of a third ranking, of the documents so named
	// (unless IndexOptions.FieldWeights leaves the name out). The keyword
	// ranking scores a chunk's fields too (IndexOptions.FieldWeights).
	// (Summing a document's chunks
	// instead favours long documents: on the repository's retrieval
	// benchmark, make eval, hit@3 fell from 0.925 to 0.775.) A chunk found
	// only by keywords keeps "isBm25": true in its metadata.
	Fusion string
	// FusionK is reciprocal rank fusion's constant k; 0 means 60, the
	// value of the method's authors (make eval: k from 10 to 100 moves
	// hit@3 by one question in forty).
	FusionK int
}

// FusionRRF is DocumentQueryOptions.Fusion for reciprocal rank fusion.
const FusionRRF = "rrf"

// defaultFusionK is reciprocal rank fusion's k when FusionK is 0.
const defaultFusionK = 60

// LocalDocumentIndex is a LocalIndex of document chunks with a catalog of
// the documents (Vectra's LocalDocumentIndex): UpsertDocument splits a text
// into chunks, embeds them and stores each as an item whose metadata holds
// documentId, startPos and endPos (inclusive UTF-16 offsets into the text)
// plus the document's metadata; the text goes to "<documentId>.txt", the
// metadata to "<documentId><ext>", and the URI → id mapping and content
// hash to the catalog, catalog<ext> (see catalog.go for how the index and
// the catalog stay consistent across crashes).
//
// Every LocalIndex method is available. Use the LocalDocumentIndex's own
// CreateIndex, DeleteIndex and EndUpdate, which keep the catalog in step;
// items inserted directly are not documents, and chunk items whose document
// is not in the catalog are removed by the next document write.
//
// A LocalDocumentIndex is safe for concurrent use; readers never wait for a
// writer, as with LocalIndex.
type LocalDocumentIndex struct {
	*LocalIndex
	embeddings EmbeddingsModel
	tokenizer  Tokenizer
	chunking   TextSplitterConfig
	bare       bool // chunks are embedded without their context line (ChunkingConfig.BareChunks)

	cat atomic.Pointer[DocumentCatalog] // the committed catalog; nil until loaded

	// Guarded by LocalIndex.mu.
	pending *docPending // document changes of the open batch

	textsMu sync.Mutex
	texts   map[string]docSource // documents being committed, by id
}

// NewLocalDocumentIndex returns the document index in cfg.FolderPath.
// Nothing is read until first use; like Vectra, a document index needs
// CreateIndex (or an existing index) before documents are added. A missing
// tokenizer, storage or codec, or an invalid chunking config, is
// ErrInvalidArgument.
func NewLocalDocumentIndex(cfg LocalDocumentIndexConfig) (*LocalDocumentIndex, error) {
	chunking := cfg.ChunkingConfig.TextSplitterConfig()
	tok := cfg.Tokenizer
	if tok == nil {
		tok = chunking.Tokenizer
	}
	if tok == nil {
		return nil, fmt.Errorf("new document index %q: a tokenizer is required: %w", cfg.FolderPath, ErrInvalidArgument)
	}
	chunking.Tokenizer = tok
	if _, err := NewTextSplitter(chunking); err != nil {
		return nil, fmt.Errorf("new document index %q: chunking config: %w", cfg.FolderPath, err)
	}
	d := &LocalDocumentIndex{embeddings: cfg.Embeddings, tokenizer: tok, chunking: chunking, texts: map[string]docSource{},
		bare: cfg.ChunkingConfig.BareChunks || cfg.ChunkingConfig.VectraChunking}
	ix, err := NewLocalIndex(cfg.FolderPath, cfg.IndexOptions)
	if err != nil {
		return nil, err
	}
	d.LocalIndex = ix
	ix.watch.Add(d.catalogPath())
	ix.inlineKeys = reservedChunkKeys[:]
	ix.part = d
	return d, nil
}

// Embeddings is the embeddings model, nil when none was configured.
func (d *LocalDocumentIndex) Embeddings() EmbeddingsModel { return d.embeddings }

// Tokenizer is the tokenizer of chunking and rendering.
func (d *LocalDocumentIndex) Tokenizer() Tokenizer { return d.tokenizer }

// CreateIndex creates the index (LocalIndex.CreateIndex) and then loads or
// creates the catalog, as Vectra does. With DeleteIfExists the catalog
// loaded before is forgotten (Vectra kept it in memory).
func (d *LocalDocumentIndex) CreateIndex(ctx context.Context, cfg CreateIndexConfig) error {
	d.cat.Store(nil)
	if err := d.LocalIndex.CreateIndex(ctx, cfg); err != nil {
		return err
	}
	d.cat.Store(nil)
	_, err := d.catalog(ctx, "create index", d.FolderPath())
	return err
}

// DeleteIndex deletes the folder (LocalIndex.DeleteIndex) and forgets the
// catalog.
func (d *LocalDocumentIndex) DeleteIndex(ctx context.Context) error {
	d.cat.Store(nil)
	err := d.LocalIndex.DeleteIndex(ctx)
	d.cat.Store(nil)
	return err
}

// EndUpdate commits the open batch (LocalIndex.EndUpdate) with the document
// changes made in it; the files of the documents it replaced or deleted
// are dropped (see IndexOptions.RetainDropped).
func (d *LocalDocumentIndex) EndUpdate(ctx context.Context) error {
	return d.LocalIndex.EndUpdate(ctx)
}

// IsCatalogCreated reports whether the catalog file exists.
func (d *LocalDocumentIndex) IsCatalogCreated(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	ok, err := d.Storage().PathExists(ctx, d.catalogPath())
	if err != nil {
		return false, WrapOp(ctx, "is catalog created", d.catalogPath(), err)
	}
	return ok, nil
}

// GetDocumentID returns the id of the document stored under uri.
func (d *LocalDocumentIndex) GetDocumentID(ctx context.Context, uri string) (string, bool, error) {
	c, err := d.catalog(ctx, "get document id", uri)
	if err != nil {
		return "", false, err
	}
	id, ok := c.URIToID[uri]
	return id, ok, nil
}

// DocumentURIs returns the URI of every document in the catalog, sorted,
// including documents with no chunks (an empty text), which ListDocuments
// leaves out. A missing index is ErrIndexNotFound.
func (d *LocalDocumentIndex) DocumentURIs(ctx context.Context) ([]string, error) {
	c, err := d.catalog(ctx, "list document uris", d.FolderPath())
	if err != nil {
		return nil, err
	}
	uris := make([]string, 0, len(c.URIToID))
	for uri := range c.URIToID {
		uris = append(uris, uri)
	}
	slices.Sort(uris)
	return uris, nil
}

// GetDocumentURI returns the URI of the document with id documentID.
func (d *LocalDocumentIndex) GetDocumentURI(ctx context.Context, documentID string) (string, bool, error) {
	c, err := d.catalog(ctx, "get document uri", documentID)
	if err != nil {
		return "", false, err
	}
	uri, ok := c.IDToURI[documentID]
	return uri, ok, nil
}

// GetCatalogStats returns the catalog's version and document count with
// the index's chunk count and metadata config.
func (d *LocalDocumentIndex) GetCatalogStats(ctx context.Context) (DocumentCatalogStats, error) {
	c, err := d.catalog(ctx, "get catalog stats", d.FolderPath())
	if err != nil {
		return DocumentCatalogStats{}, err
	}
	st, err := d.GetIndexStats(ctx)
	if err != nil {
		return DocumentCatalogStats{}, err
	}
	return DocumentCatalogStats{Version: c.Version, Documents: c.Count, Chunks: st.Items, MetadataConfig: st.MetadataConfig}, nil
}

// document returns a handle on the document id of this index.
func (d *LocalDocumentIndex) document(id, uri string) *LocalDocument {
	return newLocalDocument(d.FolderPath(), d.Storage(), d.Codec(), d.tokenizer, id, uri)
}

// documentSource is the text the keyword index reads chunk texts from (the
// index's part as commitParticipant), and the document's URI: the text of
// a document being committed from memory, any other from "<id>.txt", its
// URI from the committed catalog.
func (d *LocalDocumentIndex) documentSource(ctx context.Context, id string) (string, string, error) {
	d.textsMu.Lock()
	t, ok := d.texts[id]
	d.textsMu.Unlock()
	if ok {
		return t.text, t.uri, nil
	}
	var uri string
	if c := d.cat.Load(); c != nil {
		uri = c.IDToURI[id]
	}
	text, err := d.document(id, uri).LoadText(ctx)
	return text, uri, err
}

// docSource is a document's text and URI, held while it is committed.
type docSource struct{ text, uri string }

func (d *LocalDocumentIndex) rememberText(id, text, uri string) {
	d.textsMu.Lock()
	d.texts[id] = docSource{text, uri}
	d.textsMu.Unlock()
}

func (d *LocalDocumentIndex) forgetTexts(texts map[string]string) {
	d.textsMu.Lock()
	for id := range texts {
		delete(d.texts, id)
	}
	d.textsMu.Unlock()
}

// noModel is the error of a call that needs the embeddings model the index
// was not given; it names the index's folder.
func (d *LocalDocumentIndex) noModel() error {
	return fmt.Errorf("document index %q has no embeddings model: %w", d.FolderPath(), ErrEmbeddingsNotConfigured)
}
