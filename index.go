package folio

import (
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

// IndexOptions are core.IndexOptions, every one optional here: a nil
// Storage is the local file system (storagefs.New(nil)) and a nil Codec is
// JSON (codecjson.New()), Vectra's default; use codecpb.New() for protobuf.
type IndexOptions = core.IndexOptions

// DocumentIndexConfig is core.LocalDocumentIndexConfig, every field
// optional here but FolderPath: the index options default as in
// IndexOptions, and a nil Tokenizer is o200k_base
// (tokenizertiktoken.New()), Vectra's default, unless
// ChunkingConfig.Tokenizer is set.
type DocumentIndexConfig = core.LocalDocumentIndexConfig

// WithDefaults returns opts with this package's defaults filled in where
// they are unset: the local file system and JSON. Every constructor of the
// package applies it; it is exported for code that builds core values
// itself.
func WithDefaults(opts IndexOptions) (IndexOptions, error) {
	if opts.Storage == nil {
		local, err := storagefs.New(nil)
		if err != nil {
			return opts, err
		}
		opts.Storage = local
	}
	if opts.Codec == nil {
		opts.Codec = codecjson.New()
	}
	return opts, nil
}

// NewLocalIndex returns the index in folderPath with opts (nil: every
// default). Nothing is read until first use.
func NewLocalIndex(folderPath string, opts *IndexOptions) (*core.LocalIndex, error) {
	var o IndexOptions
	if opts != nil {
		o = *opts
	}
	o, err := WithDefaults(o)
	if err != nil {
		return nil, err
	}
	return core.NewLocalIndex(folderPath, o)
}
