//go:build js && wasm

package browser

import (
	"fmt"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	storageidb "github.com/foliovec/folio/adapters/storage-idb"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
)

// IndexOptions are core.IndexOptions, every one optional here: a nil
// Storage is the IndexedDB database "vectra-db" of the page's origin
// (storageidb.New), where Vectra's browser build keeps its indexes, and a
// nil Codec is JSON (codecjson.New()). QuantizedScan, StrictFilters and
// the rest apply as in core.
type IndexOptions = core.IndexOptions

// DocumentIndexConfig is core.LocalDocumentIndexConfig, every field
// optional here but FolderPath: the index options default as in
// IndexOptions, and a nil Tokenizer is o200k_base
// (tokenizertiktoken.New()), unless ChunkingConfig.Tokenizer is set.
type DocumentIndexConfig = core.LocalDocumentIndexConfig

// WithDefaults returns opts with the browser's defaults filled in where
// they are unset: IndexedDB and JSON. Both constructors apply it.
func WithDefaults(opts IndexOptions) IndexOptions {
	if opts.Storage == nil {
		opts.Storage = storageidb.New(nil)
	}
	if opts.Codec == nil {
		opts.Codec = codecjson.New()
	}
	return opts
}

// NewLocalIndex returns the index stored in folderPath, by default as
// index.json in the page's IndexedDB. Nothing is read or written until
// first use: call CreateIndex to make a new one. opts may be nil.
func NewLocalIndex(folderPath string, opts *IndexOptions) (*core.LocalIndex, error) {
	var o IndexOptions
	if opts != nil {
		o = *opts
	}
	return core.NewLocalIndex(folderPath, WithDefaults(o))
}

// NewLocalDocumentIndex returns the document index in cfg.FolderPath, by
// default in the page's IndexedDB, with JSON files and the o200k_base
// tokenizer. Nothing is read until first use: call CreateIndex to make a
// new one. An empty FolderPath is core.ErrInvalidArgument.
func NewLocalDocumentIndex(cfg DocumentIndexConfig) (*core.LocalDocumentIndex, error) {
	if cfg.FolderPath == "" {
		return nil, fmt.Errorf("browser: new document index: a folder path is required: %w", core.ErrInvalidArgument)
	}
	cfg.IndexOptions = WithDefaults(cfg.IndexOptions)
	if cfg.Tokenizer == nil && cfg.ChunkingConfig.Tokenizer == nil {
		cfg.Tokenizer = tokenizertiktoken.New()
	}
	return core.NewLocalDocumentIndex(cfg)
}
