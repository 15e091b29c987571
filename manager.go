package folio

import (
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

// NewIndexManager returns a manager.Manager for cfg with this package's
// defaults where cfg leaves them unset, as Vectra's IndexManager config is
// all optional: the local file system for Storage, both formats (FormatJSON
// and FormatProtobuf) for Formats, and o200k_base for Tokenizer. The
// manager reads nothing until Initialize.
func NewIndexManager(cfg manager.Config) (*manager.Manager, error) {
	opts, err := WithDefaults(cfg.IndexOptions)
	if err != nil {
		return nil, err
	}
	opts.Codec = nil // each folder's format decides
	cfg.IndexOptions = opts
	if cfg.Formats == nil {
		cfg.Formats = map[string]core.IndexCodec{FormatJSON: codecjson.New(), FormatProtobuf: codecpb.New()}
	}
	if cfg.Tokenizer == nil {
		cfg.Tokenizer = tokenizertiktoken.New()
	}
	return manager.New(cfg)
}
