package folio

import (
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
)

// NewTextSplitter returns a core.TextSplitter for cfg with this package's
// default tokenizer, o200k_base (tokenizertiktoken.New()), when
// cfg.Tokenizer is nil. Zero fields mean Vectra's TextSplitter defaults,
// as in core.NewTextSplitter.
func NewTextSplitter(cfg core.TextSplitterConfig) (*core.TextSplitter, error) {
	if cfg.Tokenizer == nil {
		cfg.Tokenizer = tokenizertiktoken.New()
	}
	return core.NewTextSplitter(cfg)
}
