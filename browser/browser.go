//go:build js && wasm

package browser

import (
	"context"
	"fmt"
	"log/slog"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	storageidb "github.com/foliovec/folio/adapters/storage-idb"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
)

// IndexOptions configures NewLocalIndex: the fields of core.IndexOptions
// a page sets, every one optional.
type IndexOptions struct {
	// IndexName is the index file's name in the folder; "" means
	// index.json.
	IndexName string
	// Storage holds the folder; nil means the IndexedDB database
	// "vectra-db" of the page's origin (storageidb.New), where Vectra's
	// browser build keeps its indexes.
	Storage core.FileStorage
	// Codec reads and writes the index; nil means JSON (codecjson.New()).
	Codec core.IndexCodec
	// Logger receives warnings core cannot return; nil is silent.
	Logger *slog.Logger
	// DocReader returns a document's text for hybrid (BM25) queries; nil
	// reads "<documentId>.txt" in the folder.
	DocReader func(ctx context.Context, documentID string) (string, error)
}

// NewLocalIndex returns the index stored in folderPath, by default as
// index.json in the page's IndexedDB. Nothing is read or written until
// first use: call CreateIndex to make a new one. opts may be nil.
func NewLocalIndex(folderPath string, opts *IndexOptions) (*core.LocalIndex, error) {
	var o IndexOptions
	if opts != nil {
		o = *opts
	}
	if o.Storage == nil {
		o.Storage = storageidb.New(storageidb.Options{})
	}
	if o.Codec == nil {
		o.Codec = codecjson.New()
	}
	return core.NewLocalIndex(folderPath, core.IndexOptions{
		IndexName: o.IndexName,
		Storage:   o.Storage,
		Codec:     o.Codec,
		Logger:    o.Logger,
		DocReader: o.DocReader,
	})
}

// DocumentIndexConfig configures NewLocalDocumentIndex: the fields of
// core.LocalDocumentIndexConfig a page sets, every one optional but
// FolderPath.
type DocumentIndexConfig struct {
	// FolderPath is the index folder. Required.
	FolderPath string
	// Embeddings embeds chunks and queries; needed by UpsertDocument and
	// QueryDocuments only.
	Embeddings core.EmbeddingsModel
	// Tokenizer counts tokens; nil means o200k_base
	// (tokenizertiktoken.New()), Vectra's default, unless
	// ChunkingConfig.Tokenizer is set.
	Tokenizer core.Tokenizer
	// ChunkingConfig is how documents are split; nil means
	// core.DefaultDocumentChunkingConfig().
	ChunkingConfig *core.TextSplitterConfig
	// Storage holds the folder; nil means the IndexedDB database
	// "vectra-db" (storageidb.New).
	Storage core.FileStorage
	// Codec reads and writes the index, catalog and metadata files; nil
	// means JSON (codecjson.New()).
	Codec core.IndexCodec
	// IndexName is the index file's name; "" means index.json.
	IndexName string
	// Logger receives warnings core cannot return; nil is silent.
	Logger *slog.Logger
}

// NewLocalDocumentIndex returns the document index in cfg.FolderPath, by
// default JSON files in the page's IndexedDB split with the o200k_base
// tokenizer. Nothing is read until first use: call CreateIndex to make a
// new one. An empty FolderPath is core.ErrInvalidArgument.
func NewLocalDocumentIndex(cfg DocumentIndexConfig) (*core.LocalDocumentIndex, error) {
	if cfg.FolderPath == "" {
		return nil, fmt.Errorf("browser: new document index: a folder path is required: %w", core.ErrInvalidArgument)
	}
	if cfg.Storage == nil {
		cfg.Storage = storageidb.New(storageidb.Options{})
	}
	if cfg.Codec == nil {
		cfg.Codec = codecjson.New()
	}
	if cfg.Tokenizer == nil && (cfg.ChunkingConfig == nil || cfg.ChunkingConfig.Tokenizer == nil) {
		cfg.Tokenizer = tokenizertiktoken.New()
	}
	return core.NewLocalDocumentIndex(core.LocalDocumentIndexConfig{
		FolderPath:     cfg.FolderPath,
		Embeddings:     cfg.Embeddings,
		Tokenizer:      cfg.Tokenizer,
		ChunkingConfig: cfg.ChunkingConfig,
		Storage:        cfg.Storage,
		Codec:          cfg.Codec,
		IndexName:      cfg.IndexName,
		Logger:         cfg.Logger,
	})
}
