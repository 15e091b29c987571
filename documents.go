package folio

import (
	"fmt"

	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
)

// NewLocalDocumentIndex returns the document index in cfg.FolderPath with
// the package's defaults (see DocumentIndexConfig). Nothing is read until
// first use; like Vectra, a document index needs CreateIndex (or an
// existing index) before documents are added.
func NewLocalDocumentIndex(cfg DocumentIndexConfig) (*core.LocalDocumentIndex, error) {
	if cfg.FolderPath == "" {
		return nil, fmt.Errorf("folio: new document index: a folder path is required: %w", core.ErrInvalidArgument)
	}
	opts, err := WithDefaults(cfg.IndexOptions)
	if err != nil {
		return nil, err
	}
	cfg.IndexOptions = opts
	if cfg.Tokenizer == nil && cfg.ChunkingConfig.Tokenizer == nil {
		cfg.Tokenizer = tokenizertiktoken.New()
	}
	return core.NewLocalDocumentIndex(cfg)
}
