package folio

import (
	"fmt"
	"log/slog"
	"time"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
)

// DocumentIndexConfig configures NewLocalDocumentIndex: the fields of
// core.LocalDocumentIndexConfig, every one optional but FolderPath.
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
	// core.DefaultDocumentChunkingConfig() (512 tokens, separators kept).
	ChunkingConfig *core.TextSplitterConfig
	// Storage holds the folder; nil means the local file system
	// (storagefs.New()).
	Storage core.FileStorage
	// Codec reads and writes the index, catalog and metadata files; nil
	// means JSON (codecjson.New()). Use codecpb.New() for protobuf.
	Codec core.IndexCodec
	// IndexName is the index file's name; "" means "index" plus the
	// codec's extension.
	IndexName string
	// Logger receives warnings core cannot return; nil is silent.
	Logger *slog.Logger
	// StrictFilters makes a filter on a key that is not indexed an error
	// (core.ErrInvalidFilter) instead of matching nothing.
	StrictFilters bool
	// FreshnessInterval is how often readers check whether another process
	// has committed to the folder; 0 means 250 ms, negative never (see
	// core.IndexOptions).
	FreshnessInterval time.Duration
	// RetainDropped is how long files of replaced or deleted documents
	// are kept for readers on the previous state; see core.IndexOptions.
	RetainDropped time.Duration
}

// NewLocalDocumentIndex returns the document index in cfg.FolderPath, by
// default JSON files on the local file system split with the o200k_base
// tokenizer. Nothing is read until first use: call CreateIndex to make a
// new one. An empty FolderPath is core.ErrInvalidArgument.
func NewLocalDocumentIndex(cfg DocumentIndexConfig) (*core.LocalDocumentIndex, error) {
	if cfg.FolderPath == "" {
		return nil, fmt.Errorf("folio: new document index: a folder path is required: %w", core.ErrInvalidArgument)
	}
	if cfg.Storage == nil {
		cfg.Storage = storagefs.New()
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
		StrictFilters:  cfg.StrictFilters,

		FreshnessInterval: cfg.FreshnessInterval,
		RetainDropped:     cfg.RetainDropped,
	})
}
