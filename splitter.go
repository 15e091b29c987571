package folio

import (
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
)

// NewTextSplitter returns a core.TextSplitter for cfg with this package's
// default tokenizer, o200k_base (tokenizertiktoken.New()), when
// cfg.Tokenizer is nil. A zero ChunkSize means Vectra's default, 400
// tokens, as in core.NewTextSplitter; a zero ChunkOverlap means no overlap
// (Go cannot tell it from unset): for Vectra's default of 40, start from
// core.DefaultTextSplitterConfig().
func NewTextSplitter(cfg core.TextSplitterConfig) (*core.TextSplitter, error) {
	if cfg.Tokenizer == nil {
		cfg.Tokenizer = tokenizertiktoken.New()
	}
	return core.NewTextSplitter(cfg)
}
